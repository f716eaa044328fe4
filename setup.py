"""Package discovery, the one thing pyproject.toml cannot say here.

The design card keeps the stages as top-level folders (``ingest/``, ``citations/``, ...), installed
under one namespace (``reflong.ingest``, ...) so nothing squats generic names like ``db``. setuptools
maps a folder to a package name with ``package-dir``, but its ``packages.find`` only names packages
after their folders, so every sub-folder would have to be listed by hand. This finds them: a new
sub-folder with an ``__init__.py`` is installed with no edit here. Everything else is in pyproject.toml.

A folder of data files only (the human page's ``evaluate/human/static/``) is found too, as a namespace
package: setuptools warns that a data folder left out of ``packages`` "would be ignored" (its
``BuildBackendWarning``; today the files still ship through the parent's package-data, a behaviour it
announces it will drop), so naming it a package of its own keeps the page in every wheel.
"""

from setuptools import find_namespace_packages, setup

# Top-level folder -> installed package name.
STAGE_FOLDERS = {
    "reflong": "reflong",
    **{f: f"reflong.{f}" for f in ("ingest", "citations", "assemble", "db", "evaluate")},
}

packages = [
    name if not sub else f"{name}.{sub}"
    for folder, name in STAGE_FOLDERS.items()
    for sub in ["", *find_namespace_packages(folder, exclude=["*__pycache__*"])]
]
setup(packages=packages, package_dir={name: folder for folder, name in STAGE_FOLDERS.items()})
