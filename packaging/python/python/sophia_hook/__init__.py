"""The sophia-hook wheel ships a native binary, not a Python library: find_bin() says where the
installer put it (the scripts folder of the environment the wheel went into)."""

import os
import sys
import sysconfig

__all__ = ["find_bin"]


def _user_scheme():
    get = getattr(sysconfig, "get_preferred_scheme", None)  # Python 3.10+
    if get is not None:
        return get("user")
    if os.name == "nt":
        return "nt_user"
    if sys.platform == "darwin" and sys._framework:
        return "osx_framework_user"
    return "posix_user"


def _candidates():
    # The scheme this interpreter installs into (a venv's bin/, or the system's).
    yield sysconfig.get_path("scripts")
    # The base interpreter's, when this one is a venv over it.
    yield sysconfig.get_path("scripts", vars={"base": sys.base_prefix})
    # `pip install --user`.
    try:
        yield sysconfig.get_path("scripts", scheme=_user_scheme())
    except KeyError:
        pass
    # `pip install --target DIR`: the package at DIR/sophia_hook, scripts in DIR/bin.
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    yield os.path.join(package_root, "bin")
    # `pip install --prefix DIR`: the package in DIR/lib/pythonX.Y/site-packages (DIR/Lib/site-packages
    # on Windows), scripts in DIR/bin (DIR/Scripts).
    if os.name == "nt":
        yield os.path.join(package_root, "..", "..", "Scripts")
    else:
        yield os.path.join(package_root, "..", "..", "..", "bin")


def find_bin():
    """The path of the sophia-hook binary this wheel installed; FileNotFoundError if none."""
    name = "sophia-hook" + (sysconfig.get_config_var("EXE") or "")
    seen = []
    for folder in _candidates():
        if not folder:
            continue
        path = os.path.normpath(os.path.join(folder, name))
        if path in seen:
            continue
        seen.append(path)
        if os.path.isfile(path):
            return path
    raise FileNotFoundError(
        "sophia-hook: no {} binary found in {}".format(name, ", ".join(os.path.dirname(p) for p in seen))
    )
