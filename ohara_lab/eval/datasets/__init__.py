"""Loaders that turn each evaluation dataset's own files into a `Dataset`.

Use `load_dataset(name_or_path, data_dir)` (registry); the per-format modules are
reachable for their extra options.
"""
