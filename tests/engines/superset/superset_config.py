"""Superset's configuration for tests/engines/test_superset.sh: its metadata in SQLite under $SUPERSET_HOME,
no CSRF (the test drives the REST API), no example data. SUPERSET_CONFIG_PATH points here."""
import os

SECRET_KEY = os.environ.get("SUPERSET_SECRET_KEY", "floe-superset-test-only-" + "k" * 32)
SQLALCHEMY_DATABASE_URI = "sqlite:///" + os.path.join(os.environ["SUPERSET_HOME"], "superset.db")
WTF_CSRF_ENABLED = False
TALISMAN_ENABLED = False
CONTENT_SECURITY_POLICY_WARNING = False
SQLALCHEMY_EXAMPLES_URI = None
