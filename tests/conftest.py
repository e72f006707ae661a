"""The suite keeps its caches apart from the user's: analysis's kept frames (infer.layout.frame_cache_path) go to a
folder of this test session's own, removed at its end, and the commands the tests start inherit it."""
import atexit
import os
import shutil
import tempfile

os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="mmr-tests-cache-")
atexit.register(shutil.rmtree, os.environ["XDG_CACHE_HOME"], ignore_errors=True)
