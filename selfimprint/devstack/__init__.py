"""The local default stack: every real component started on loopback by `selfimprint dev up`."""
