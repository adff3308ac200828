"""The inference policy's vocabulary as package data: found where a wheel puts it, checked."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from selfimprint.domain.inference_lexicon import (
    DEFAULT_LEXICON,
    Category,
    CategoryTerms,
    Language,
    LexiconError,
    parse_lexicon,
)

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[2]
SOURCE = "test.toml"


def _document(tables: dict[str, str]) -> str:
    return "\n".join(f"[{name}]\n{body}\n" for name, body in tables.items())


def _valid_tables() -> dict[str, str]:
    return {c.value: f"terms = ['word{i}*']" for i, c in enumerate(Category)}


def _parse(**changes: str | None) -> dict[Category, CategoryTerms]:
    """A valid lexicon with some tables replaced (or, given None, removed)."""
    tables = _valid_tables()
    for name, body in changes.items():
        if body is None:
            del tables[name]
        else:
            tables[name] = body
    return parse_lexicon(_document(tables), SOURCE)


# --- the shipped files ------------------------------------------------------------------------


@pytest.mark.parametrize("language", list(Language))
def test_each_language_file_is_a_package_resource(language: Language) -> None:
    folder = resources.files("selfimprint.domain") / "data" / "inference_lexicon"
    text = (folder / f"{language.value}.toml").read_text(encoding="utf-8")
    assert parse_lexicon(text, f"{language.value}.toml") == DEFAULT_LEXICON[language]
    assert all(entry.terms for entry in DEFAULT_LEXICON[language].values())


def test_a_built_package_finds_and_checks_its_lexicon(tmp_path: Path) -> None:
    """setuptools' build step (the one a wheel is made from) copies the files named by
    package-data; the copy is imported on its own, not through the repository checkout."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, src / name)
    shutil.copytree(
        REPO / "selfimprint",
        src / "selfimprint",
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
    )
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-c", "import setuptools; setuptools.setup()", "-q", "build_py"]
        + ["--build-lib", str(site)],
        cwd=src,
        check=True,
        capture_output=True,
    )
    probe = (
        "from importlib import resources\n"
        "import selfimprint.domain.inference_lexicon as lexicon\n"
        "folder = resources.files('selfimprint.domain') / 'data' / 'inference_lexicon'\n"
        "print(lexicon.__file__)\n"
        "print(folder / 'ru.toml')\n"
        "print(sum(len(e.terms) for c in lexicon.DEFAULT_LEXICON.values() for e in c.values()))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(site)}
    run = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    module_file, data_file, terms = run.stdout.splitlines()
    assert Path(module_file).is_relative_to(site) and Path(data_file).is_relative_to(site)
    assert int(terms) == sum(len(e.terms) for c in DEFAULT_LEXICON.values() for e in c.values())

    # A broken file in the installed copy stops the import and says where.
    installed = site / "selfimprint" / "domain" / "data" / "inference_lexicon" / "ru.toml"
    installed.write_text(
        installed.read_text(encoding="utf-8").replace("'диагноз*',", "'диагноз*', 'диагноз*',"),
        encoding="utf-8",
    )
    broken = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert broken.returncode != 0
    assert "LexiconError" in broken.stderr and "ru.toml [medical_diagnosis]" in broken.stderr
    assert "диагноз*" in broken.stderr


# --- what a file may say ----------------------------------------------------------------------


def test_a_valid_file_parses_in_category_order_whatever_its_own() -> None:
    tables = dict(reversed(list(_valid_tables().items())))
    tables["political_views"] = "terms = ['vot*', 'left wing*']\nexceptions = ['office politics']"
    lexicon = parse_lexicon(_document(tables), SOURCE)
    assert list(lexicon) == list(Category)
    assert lexicon[Category.POLITICAL_VIEWS] == CategoryTerms(
        terms=("vot*", "left wing*"), exceptions=("office politics",)
    )
    assert lexicon[Category.RELATIONSHIP].exceptions == ()


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"politcal_views": "terms = ['vot*']"}, r"unknown categories \['politcal_views'\]"),
        ({"long_term_goal": None}, r"no table for categories \['long_term_goal'\]"),
        ({"health_status": "terms = []"}, r"\[health_status\]: no terms"),
        ({"health_status": "terms = ['ill*', '']"}, r"term '' is empty"),
        ({"health_status": "terms = ['   ']"}, r"term '   ' is empty"),
        ({"health_status": "terms = [' ill*']"}, r"term ' ill\*' starts or ends with whitespace"),
        ({"health_status": "terms = ['Ill*']"}, r"term 'Ill\*' has upper-case letters"),
        ({"health_status": "terms = ['(ill']"}, r"term '\(ill' is not a valid pattern"),
        (
            {"health_status": "terms = ['ill*']\nexceptions = ['Ill at ease']"},
            r"exception 'Ill at ease' has upper-case letters",
        ),
        ({"health_status": "terms = ['ill*', 'sick', 'ill*']"}, r"terms listed twice: \['ill\*'\]"),
        # ё and е are one letter to the matcher, so these are the same term.
        ({"health_status": "terms = ['болеет', 'болеёт']"}, r"terms listed twice"),
        (
            {"health_status": "terms = ['x']\nexceptions = ['a b', 'a b']"},
            r"exceptions listed twice: \['a b'\]",
        ),
        (
            {"political_views": "terms = ['vot*']", "emotional_state": "terms = ['vot*']"},
            r"term 'vot\*' is in both \[political_views\] and \[emotional_state\]",
        ),
        ({"health_status": "term = ['ill*']"}, r"\[health_status\]: .*terms"),
        (
            {"health_status": "terms = ['ill*']\nexception = ['x']"},
            r"\[health_status\]: .*exception",
        ),
        ({"health_status": "terms = [1]"}, r"\[health_status\]: .*string"),
        ({"health_status": "terms = 'ill*'"}, r"\[health_status\]: .*list"),
    ],
)
def test_a_file_that_would_leave_a_category_unguarded_is_rejected(
    changes: dict[str, str | None], message: str
) -> None:
    with pytest.raises(LexiconError, match=message) as caught:
        _parse(**changes)
    assert str(caught.value).startswith(SOURCE)


def test_invalid_toml_names_the_file() -> None:
    with pytest.raises(LexiconError, match=rf"{SOURCE}: not valid TOML"):
        parse_lexicon("[health_status\nterms = ['ill*']", SOURCE)


def test_escapes_may_use_upper_case() -> None:
    lexicon = _parse(financial_position=r"terms = ['\S+ rubles', '\d+\s?k']")
    assert lexicon[Category.FINANCIAL_POSITION].terms == (r"\S+ rubles", r"\d+\s?k")
