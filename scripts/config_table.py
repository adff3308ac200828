"""Print the configuration table for the README from the Settings model itself, so the two
never drift apart: `.venv/bin/python scripts/config_table.py`."""

from __future__ import annotations

import sys

from selfimprint.config import Settings


def main() -> None:
    rows = ["| variable | default | meaning |", "| --- | --- | --- |"]
    for name, field in Settings.model_fields.items():
        default = field.default
        shown = "(unset)" if default is None else getattr(default, "value", default)
        if hasattr(default, "get_secret_value"):
            shown = "(secret)"
        rows.append(f"| `SELFIMPRINT_{name.upper()}` | `{shown}` | {field.description or ''} |")
    sys.stdout.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
