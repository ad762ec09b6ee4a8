"""Runs Iceberg's REST Compatibility Kit (RESTCompatibilityKitSuite of iceberg-open-api 1.11.0)
against a real `floe serve` (auth on, local warehouse folder: the RCK's client reads metadata
files directly) and reports each of its tests to Scorecard("rck").

The kit is configured only through CATALOG_* environment variables (RCKUtils) and the JUnit
configuration parameter rck.local=false (so it does not start Iceberg's own server). Tests the
kit itself skips (JUnit assumptions and @Disabled) are listed, not counted; the reasons are in
tests/engines/README.md.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

from floe_engine import FloeServer, Scorecard

SUITE = "org.apache.iceberg.rest.RESTCompatibilityKitSuite"

# Tests refused by floe's storage confinement (tests/engines/README.md, "REST Compatibility Kit"):
# they commit manifests naming data files outside the table ('/path/to/data-a.parquet'), which
# floe's SQL endpoint would then read for anyone allowed to read the table. Such a test counts
# as "not supported by policy" only when it fails with exactly that refusal; any other failure,
# or a refusal of a test not listed, is a failure.
POLICY_REFUSED = {
    "testAppend", "testCatalogWithCustomMetricsReporter",
    "testCompleteCreateOrReplaceTransactionCreate", "testCompleteCreateOrReplaceTransactionReplace",
    "testCompleteCreateTransaction", "testCompleteCreateTransactionMultipleSchemas",
    "testCompleteCreateTransactionV2", "testCompleteReplaceTransaction",
    "testConcurrentAppendEmptyTable", "testConcurrentAppendNonEmptyTable",
    "testConcurrentReplaceTransactionPartitionSpec", "testConcurrentReplaceTransactionPartitionSpec2",
    "testConcurrentReplaceTransactionPartitionSpecConflict", "testConcurrentReplaceTransactionSchema",
    "testConcurrentReplaceTransactionSchema2", "testConcurrentReplaceTransactionSchemaConflict",
    "testConcurrentReplaceTransactionSortOrder", "testConcurrentReplaceTransactionSortOrderConflict",
    "testConcurrentReplaceTransactions", "testCreateOrReplaceReplaceTransactionReplace",
    "testCreateOrReplaceTransactionCreate", "testCreateTransaction", "testRegisterTable",
    "testRemoveUnusedSchemas", "testRemoveUnusedSpec", "testReplaceTableKeepsSnapshotLog",
    "testReplaceTransaction",
}
CONFINEMENT = re.compile(r"^Forbidden: manifest '[^']*' names the file '[^']*', outside the table location")


def policy_refusal(name, msg):
    method = name.split(".", 1)[-1].split("(", 1)[0]
    return method in POLICY_REFUSED and CONFINEMENT.match(msg) is not None


def main():
    jars = os.environ["FLOE_RCK_JARS"]
    tmp = tempfile.mkdtemp(prefix="floe-rck.")
    # the kit's @TempDir locations (custom table and view locations) live under jtmp, a root
    # the server is told to allow beside its warehouse (--allowed-location)
    jtmp = os.path.join(tmp, "jtmp")
    os.makedirs(jtmp)
    # CatalogTests also asks for the fixed locations file:/tmp/ns/tbl and file:/tmp/newdb/newtable
    floe = FloeServer.start(tmp, args=["--allowed-location", jtmp, "--allowed-location", "/tmp/ns",
                                       "--allowed-location", "/tmp/newdb"])
    card = Scorecard("rck", unsupported_by="policy")
    reports = os.path.join(tmp, "reports")
    env = dict(os.environ,
               CATALOG_URI=floe.rest_uri + "/",
               CATALOG_WAREHOUSE=floe.warehouse,
               CATALOG_CREDENTIAL=floe.credential,
               CATALOG_OAUTH2__SERVER__URI=floe.token_uri,
               # the kit's knobs (RESTCompatibilityKitSuite), set to what floe does: a table's
               # namespace must exist (the spec's 404 NoSuchNamespaceException), and names may
               # contain dots (namespace levels are separated by 0x1F, never by '.')
               CATALOG_RCK_REQUIRES__NAMESPACE__CREATE="true",
               CATALOG_RCK_SUPPORTS__NAMES__WITH__DOT="true")
    cmd = ["java", "-Xmx768m", "-Djava.io.tmpdir=" + jtmp, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
           "-cp", os.path.join(jars, "*"),
           "org.junit.platform.console.ConsoleLauncher", "execute",
           "--disable-banner", "--disable-ansi-colors", "--details=tree",
           "--config=rck.local=false",
           "--select-class", SUITE, "--reports-dir", reports]
    t0 = time.time()
    log = os.path.join(tmp, "rck.log")
    with open(log, "w") as out:
        rc = subprocess.run(cmd, env=env, stdout=out, stderr=subprocess.STDOUT).returncode
    text = open(log, errors="replace").read()
    sys.stdout.write(text[-60000:] if os.environ.get("FLOE_RCK_VERBOSE") else "")
    summary = [l.strip() for l in text.splitlines() if l.strip().startswith("[") and "tests" in l]
    print("\n".join(summary))
    print("rck: java exited %d after %.0fs" % (rc, time.time() - t0))

    cases = 0
    skipped = []
    for xml in glob.glob(os.path.join(reports, "TEST-*.xml")):
        for tc in ET.parse(xml).getroot().iter("testcase"):
            if tc.get("classname", "").endswith("Suite"):
                continue
            cases += 1
            name = "%s.%s" % (tc.get("classname", "").rsplit(".", 1)[-1], tc.get("name"))
            bad = tc.find("failure")
            if bad is None:
                bad = tc.find("error")
            skip = tc.find("skipped")
            if bad is not None:
                msg = (bad.get("message") or bad.text or "").strip()
                if policy_refusal(name, msg):
                    card.unsupported(name, msg)
                    continue
                card.failed.append((name, msg))
                print("FAIL %s: %s" % (name, msg[:2000]))
                body = (bad.text or "").splitlines()
                print("\n".join("    " + l for l in body[:25]))
            elif skip is not None:
                skipped.append((name, (skip.get("message") or skip.text or "").strip()[:300]))
            else:
                card.passed.append(name)
    if cases == 0:
        card.failed.append(("rck run", "no test reports; java exit %d" % rc))
        print(text[-8000:])
    for name, why in sorted(skipped):
        print("  skipped by the RCK itself: %s (%s)" % (name, why.splitlines()[0] if why else ""))
    floe.stop()
    for l in open(floe.log, errors="replace"):
        if "ERROR" in l or "runtime error" in l or "AddressSanitizer" in l:
            print("server: " + l.rstrip())
    return card.finish()


if __name__ == "__main__":
    sys.exit(main())
