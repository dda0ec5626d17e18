"""A results directory of two nights, as `rewind explore` leaves it (docs/explore.md).

Night 1: lost_update and ledger ran; bucket A (lost_update) and B (ledger) are new.
Night 2: A is still failing, B is fixed, C (lost_update, a hostile message and no
explanation file) is new; ledger has no samples (so no plot of its own).
"""
import json
import os
import sqlite3

A = "a1a1a1a1a1a1a1a1"
B = "b2b2b2b2b2b2b2b2"
C = "c3c3c3c3c3c3c3c3"
HOSTILE = '<script>alert("x")</script> & co \'quoted\''
TXT_HOSTILE = "<img src=x onerror=alert(1)>"

SCHEMA = """
CREATE TABLE nights(id INTEGER PRIMARY KEY, dir TEXT, suite TEXT, engine TEXT,
  started INTEGER, ended INTEGER, seconds INTEGER, jobs INTEGER, state TEXT);
CREATE TABLE night_tests(night INTEGER, test TEXT, state TEXT, seconds_planned INTEGER,
  seconds_run REAL, execs INTEGER, exec_per_s REAL, edges INTEGER, failures INTEGER,
  error TEXT, PRIMARY KEY (night, test));
CREATE TABLE samples(night INTEGER, test TEXT, t REAL, execs INTEGER, edges INTEGER,
  failures INTEGER, corpus INTEGER);
CREATE TABLE buckets(id TEXT PRIMARY KEY, test TEXT, class TEXT, status TEXT, message TEXT,
  sites TEXT, first_night INTEGER, last_night INTEGER, nights_seen INTEGER, failures INTEGER,
  state TEXT, artifact TEXT, explanation TEXT, replay TEXT);
CREATE TABLE bucket_nights(bucket TEXT, night INTEGER, failures INTEGER, state TEXT,
  PRIMARY KEY (bucket, night));
"""

NIGHTS = [
    (1, "nights/0001", "guest/tests/suite.json", "local", 1700000000, 1700003600, 3600, 2, "done"),
    (2, "nights/0002", "guest/tests/suite.json", "local", 1700086400, 1700090000, 3600, 2, "done"),
]

# night, test, state, planned, run, execs, exec/s, edges, failures, error
NIGHT_TESTS = [
    (1, "lost_update", "done", 1800, 1799.5, 100000, 55.57, 321, 7, None),
    (1, "ledger", "done", 1800, 1800.25, 50000, 27.77, 120, 3, None),
    (2, "lost_update", "done", 1800, 1801.125, 200000, 111.04, 400, 7, None),
    (2, "ledger", "done", 1800, 1799.0, 60000, 33.35, 130, 0, None),
]


def replay(bucket):
    return f"build/bin/rewind-harness --replay buckets/{bucket}/artifact.json.min.json --trust"


BUCKETS = [
    (A, "lost_update", "signal", "SIGABRT", "lost_update: counter is #, expected #",
     '["worker (guest/tests/lost_update.c:41)"]', 1, 2, 2, 12, "still-failing",
     f"buckets/{A}/artifact.json", f"buckets/{A}/explain.json", replay(A)),
    (B, "ledger", "exit", "1", "ledger: lost update: balance #, expected #",
     "deposit (guest/ledger.c:59)\njournal (guest/ledger.c:51)", 1, 1, 1, 3, "fixed",
     f"buckets/{B}/artifact.json", f"buckets/{B}/explain.json", replay(B)),
    (C, "lost_update", "deadlock", "", HOSTILE, "[]", 2, 2, 1, 2, "new",
     f"buckets/{C}/artifact.json", f"buckets/{C}/explain.json", replay(C)),
]

BUCKET_NIGHTS = [
    (A, 1, 7, "new"), (B, 1, 3, "new"),
    (A, 2, 5, "still-failing"), (B, 2, 0, "fixed"), (C, 2, 2, "new"),
]

EXPLANATION_A = {
    "format": "rewind-explanation", "version": 1,
    "file": f"buckets/{A}/artifact.json", "program": "/tests/lost_update",
    "outcome": "signal", "last_output_line": "lost_update: counter is #, expected #",
    "minimal_input": {"format": "rewind-input", "version": 1, "mode": "pct",
                      "seed": "0x00000000000000ff",
                      "injections": [{"position": 12, "kind": "demote", "priority": 1}]},
    "minimal_artifact": f"buckets/{A}/artifact.json.min.json",
    "landings": [{
        "injection": "demote to 1 at event 12", "step": 40, "event": 12,
        "thread": {"ordinal": 2, "tid": 15, "pid": 14, "program": "/tests/lost_update"},
        "site": {"address": "0x401234", "function": "worker",
                 "file": "guest/tests/lost_update.c", "line": 41,
                 "inlined_into": [{"function": "run", "file": "guest/tests/lost_update.c",
                                   "line": 60}]},
        "called_from": [{"address": "0x401300", "function": "start_thread",
                         "file": "pthread.c", "line": 7}],
        "last_output": "worker <b>2</b> starts", "other_threads": []}],
    "windows": [],
    "racing_pair": {
        "load": {"tid": 15, "kind": "read", "address": "0x410004", "value": "0x270f",
                 "event": 12, "site": {"address": "0x401234", "function": "worker",
                                       "file": "guest/tests/lost_update.c", "line": 41}},
        "store": {"tid": 16, "kind": "write", "address": "0x410004", "value": "0x752f",
                  "event": 13, "site": {"address": "0x401240", "function": "worker",
                                        "file": "guest/tests/lost_update.c", "line": 42}},
        "store_after_load_in_failing_run": True},
    "timeline": [{"step": 12, "tid": 15, "what": "runs"}, {"cut": True},
                 {"step": 40, "tid": 16, "what": "out \"<i>auditor</i>\""}],
}


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def build(results):
    """Writes the fixture into the empty folder results."""
    os.makedirs(results, exist_ok=True)
    db = sqlite3.connect(os.path.join(results, "history.sqlite"))
    db.executescript(SCHEMA)
    db.executemany("INSERT INTO nights VALUES (?,?,?,?,?,?,?,?,?)", NIGHTS)
    db.executemany("INSERT INTO night_tests VALUES (?,?,?,?,?,?,?,?,?,?)", NIGHT_TESTS)
    samples = []
    for night, tests in ((1, ("lost_update", "ledger")), (2, ("lost_update",))):
        for test in tests:
            for k in range(31):
                samples.append((night, test, 60.0 * k, 1000 * k * k + 17, 100 + 10 * k,
                                k // 5, 3 + k))
    db.executemany("INSERT INTO samples VALUES (?,?,?,?,?,?,?)", samples)
    db.executemany("INSERT INTO buckets VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", BUCKETS)
    db.executemany("INSERT INTO bucket_nights VALUES (?,?,?,?)", BUCKET_NIGHTS)
    db.commit()
    db.close()
    for night in ("0001", "0002"):
        write(os.path.join(results, "nights", night, "night.json"), "{}\n")
    for bucket in (A, B, C):
        write(os.path.join(results, "buckets", bucket, "artifact.json"), "{}\n")
    for bucket in (A, B):
        write(os.path.join(results, "buckets", bucket, "artifact.json.min.json"), "{}\n")
    write(os.path.join(results, "buckets", A, "explain.json"), json.dumps(EXPLANATION_A))
    write(os.path.join(results, "buckets", A, "explain.txt"),
          f"Explanation of buckets/{A}/artifact.json\n\nWhere it landed: {TXT_HOSTILE}\n")
    write(os.path.join(results, "buckets", B, "explain.json"), "{not json")
    os.symlink("nights/0002", os.path.join(results, "latest"))


def sql(results, statements):
    db = sqlite3.connect(os.path.join(results, "history.sqlite"))
    db.executescript(statements)
    db.commit()
    db.close()
