#!/usr/bin/env python3
"""sql_shell_pty.py - drives the interactive `floe sql` under a pseudo-terminal
(the standard pty module) the way a person types: Ctrl-C at the prompt (idle and
mid-statement), history saved as it goes (read while the shell runs, and after
SIGKILL), backslash commands inside an unfinished statement (\\r, \\q), Ctrl-D,
Ctrl-C cancelling a running statement, tab completion of keywords, namespaces, tables and
columns, \\e through a scripted editor, \\watch, and the pager (a scripted $FLOE_PAGER).

usage: sql_shell_pty.py FLOE_BIN WORKDIR   (WORKDIR holds cat.db / wh with shop.orders)
Timeouts only keep a broken shell from hanging the run; nothing is timed.
"""
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import time
import fcntl

FLOE, WORK = sys.argv[1], sys.argv[2]
HIST = os.path.join(WORK, "history")
fails = 0


def check(desc, ok, detail=""):
    global fails
    if ok:
        print("ok   " + desc)
    else:
        fails += 1
        print("FAIL: " + desc + (": " + detail if detail else ""))


class Shell:
    def __init__(self, extra_env=None, rows=0, cols=0):
        env = dict(os.environ, FLOE_HISTFILE=HIST, TERM="xterm", HOME=WORK, **(extra_env or {}))
        argv = [FLOE, "sql", "--catalog", "sqlite:" + os.path.join(WORK, "cat.db"),
                "--warehouse", os.path.join(WORK, "wh"), "-n", "shop"]
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execve(FLOE, argv, env)
        if rows:  # a terminal size, so the pager can measure results against it
            fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.out = ""  # everything read since the last expect() match

    def send(self, s):
        os.write(self.fd, s.encode())

    def read_some(self, wait):
        r, _, _ = select.select([self.fd], [], [], wait)
        if not r:
            return False
        try:
            data = os.read(self.fd, 4096)
        except OSError:
            return None  # the shell exited (EIO on the master)
        if not data:
            return None
        self.out += data.decode("utf-8", "replace")
        return True

    def expect(self, pattern, timeout=60):
        """Waits for pattern in the output (escape sequences removed);
        returns the text up to and including the match, or None."""
        deadline = time.monotonic() + timeout
        rx = re.compile(pattern)
        while True:
            clean = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]|\r|\x07", "", self.out)
            m = rx.search(clean)
            if m:
                self.out = clean[m.end():]
                return clean[:m.end()]
            left = deadline - time.monotonic()
            if left <= 0 or self.read_some(min(left, 1.0)) is None:
                clean = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]|\r|\x07", "", self.out)
                m = rx.search(clean)
                if m:
                    self.out = clean[m.end():]
                    return clean[:m.end()]
                print("  (waiting for %r, have %r)" % (pattern, clean[-300:]))
                return None

    def alive(self):
        pid, _ = os.waitpid(self.pid, os.WNOHANG)
        return pid == 0

    def wait_exit(self, timeout=60):
        """Exit status, or None if still running after timeout."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.read_some(0.2)  # drain so the child never blocks on output
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return os.waitstatus_to_exitcode(status)
        return None

    def kill(self):
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass


def history_entries():
    """The history file's entries, decoded from libedit's vis(3) form."""
    try:
        text = open(HIST, encoding="utf-8", errors="replace").read()
    except FileNotFoundError:
        return []
    out = []
    for line in text.splitlines():
        if line.startswith("_HiStOrY_V2_"):
            continue
        out.append(re.sub(r"\\(\d{3})", lambda m: chr(int(m.group(1), 8)), line))
    return out


PROMPT = r"floe> $"

# 1. Ctrl-C at the prompt clears the input; the shell goes on.
sh = Shell()
check("prompt shown", sh.expect(PROMPT) is not None)
sh.send("select 'typed but dropped' as x")
sh.expect("dropped' as x")
sh.send("\x03")
check("Ctrl-C on a typed line gives a fresh prompt", sh.expect(r"\^C\n" + PROMPT) is not None)
check("shell alive after Ctrl-C", sh.alive())
sh.send("select 40 + 2 as answer;\r")
got = sh.expect(r"\(1 row\)")
check("statement after Ctrl-C runs", got is not None and re.search(r"\b42\b", got) is not None, repr(got))
check("the dropped text was not run", got is not None and "typed but dropped" not in got.split("answer")[-1], repr(got))
sh.expect(PROMPT)

# Ctrl-C in the middle of a multi-line statement drops the whole buffer.
sh.send("select 1,\r")
check("continuation prompt", sh.expect(r"   -> $") is not None)
sh.send("\x03")
check("Ctrl-C mid-statement gives the main prompt", sh.expect(r"\^C\n" + PROMPT) is not None)
sh.send("select 7 as seven;\r")
got = sh.expect(r"\(1 row\)")
check("statement after mid-statement Ctrl-C runs alone", got is not None and "seven" in got
      and "ERROR" not in got, repr(got))
sh.expect(PROMPT)

# 2. History is written as it goes: read it while the shell still runs.
ents = history_entries()
check("history holds the statement run after Ctrl-C", "select 40 + 2 as answer;" in ents, repr(ents))
check("history holds the dropped line? no", not any("typed but dropped" in e for e in ents), repr(ents))

# 3. \r resets an unfinished statement; \p shows the buffer.
sh.send("select 'gone'\r")
sh.expect(r"   -> $")
sh.send("\\p\r")
check("\\p shows the unfinished statement", sh.expect(r"select 'gone'\n") is not None)
sh.send("\\r\r")
check("\\r resets the buffer", sh.expect(r"Query buffer reset \(cleared\)\.\n" + PROMPT) is not None)
sh.send("select 5 as five;\r")
got = sh.expect(r"\(1 row\)")
check("statement after \\r runs alone", got is not None and "gone" not in got.split("five;")[-1]
      and "ERROR" not in got, repr(got))
sh.expect(PROMPT)

# Ctrl-C while a statement runs cancels it (resent until the cancel error shows:
# the first may land before the statement starts; nothing is timed).
sh.send("select count(*) from generate_series(1, 2000000000) a, generate_series(1, 1000) b;\r")
sh.expect(r"b;\n")
cancelled = None
for _ in range(120):
    sh.send("\x03")
    cancelled = sh.expect(r"ERROR: [^\n]*cancel[^\n]*\n", timeout=1)
    if cancelled:
        break
check("Ctrl-C cancels a running statement", cancelled is not None)
sh.expect(PROMPT)
sh.send("select 11 as after_cancel;\r")
got = sh.expect(r"\(1 row\)")
check("shell alive after cancelling", got is not None and "11" in got, repr(got))
sh.expect(PROMPT)

# History survives SIGKILL (nothing written at exit).
sh.send("select 99 as kept_after_kill;\r")
sh.expect(r"\(1 row\)")
sh.expect(PROMPT)
sh.kill()
ents = history_entries()
check("history holds the last statement after SIGKILL", "select 99 as kept_after_kill;" in ents,
      repr(ents[-3:]))
check("history holds backslash commands", "\\r" in ents, repr(ents))

# 5. History is loaded at start: Up arrow recalls the last entry.
sh = Shell()
sh.expect(PROMPT)
sh.send("\x1b[A")
check("Up arrow recalls history from the file", sh.expect(r"kept_after_kill;") is not None)
sh.send("\x03")
sh.expect(PROMPT)
# \q inside an unfinished statement quits (it is not SQL).
sh.send("select 1\r")
sh.expect(r"   -> $")
sh.send("\\q\r")
code = sh.wait_exit()
check("\\q inside an unfinished statement exits", code is not None, "still running")
if code is None:
    sh.kill()

# 7. Tab completion: a keyword in the case typed, a namespace with its '.', a table in it,
# a column of the table the line names, a table of the default namespace (-n shop).
sh = Shell()
sh.expect(PROMPT)
sh.send("sel\t")
check("TAB completes a keyword in the typed case", sh.expect(r"select $") is not None)
sh.send("* from shop\t")
check("TAB completes a namespace with its dot", sh.expect(r"from shop\.$") is not None)
sh.send("or\t")
check("TAB completes a table of the namespace", sh.expect(r"orders $") is not None)
sh.send("where cust\t")
check("TAB completes a column of the table the line names",
      sh.expect(r"where customer_name $") is not None)
sh.send("= 'ann';\r")
got = sh.expect(r"\(1 row\)")
check("the completed statement runs", got is not None and "ann" in got, repr(got))
sh.expect(PROMPT)
sh.send("select * from orders where order_\t")
check("TAB completes a column of a table of the default namespace",
      sh.expect(r"where order_id $") is not None)
sh.send("= 1;\r")
got = sh.expect(r"\(1 row\)")
check("statement with a completed column runs", got is not None and "ERROR" not in got, repr(got))
sh.expect(PROMPT)
sh.send("\x04")
sh.wait_exit()

# 8. \e: the statement being typed goes to the editor and comes back; complete, it runs.
editor = os.path.join(WORK, "editor.sh")
with open(editor, "w") as f:
    f.write("#!/bin/sh\nsed -i 's/;$//; s/$/ + 1;/' \"$1\"\n")
os.chmod(editor, 0o755)
sh = Shell({"FLOE_EDITOR": editor})
sh.expect(PROMPT)
sh.send("select 41\r")
sh.expect(r"   -> $")
sh.send("\\e\r")
got = sh.expect(r"\(1 row\)")
check("\\e edits the buffer and runs it", got is not None and re.search(r"\b42\b", got) is not None,
      repr(got))
sh.expect(PROMPT)
# \e with an empty buffer edits the last statement
sh.send("\\e\r")
got = sh.expect(r"\(1 row\)")
check("\\e on an empty buffer edits the last statement",
      got is not None and re.search(r"\b43\b", got) is not None, repr(got))
sh.expect(PROMPT)

# 9. \watch reruns the last statement until Ctrl-C; c=N stops after N runs.
sh.send("select 'tick' as w;\r")
sh.expect(r"\(1 row\)")
sh.expect(PROMPT)
sh.send("\\watch 0.2\r")
first = sh.expect(r"\(every 0\.2s\)[\s\S]*?tick[\s\S]*?\(1 row\)")
second = sh.expect(r"\(every 0\.2s\)[\s\S]*?tick[\s\S]*?\(1 row\)")
check("\\watch reruns the statement", first is not None and second is not None)
sh.send("\x03")
check("Ctrl-C ends \\watch and gives the prompt", sh.expect(PROMPT) is not None)
sh.send("\\watch i=0 c=3\r")
got = sh.expect(PROMPT)
check("\\watch c=3 runs three times", got is not None and got.count("tick") == 3, repr(got))
sh.send("\\watch x=1\r")
check("\\watch with a bad argument is refused", sh.expect(r"bad argument 'x=1'") is not None)
sh.expect(PROMPT)
sh.send("\x04")
sh.wait_exit()

# 10. The pager: a result taller than the terminal goes through $FLOE_PAGER, a short one does
# not; \pset pager off streams it; always pages even a short one.
pager = os.path.join(WORK, "pager.sh")
with open(pager, "w") as f:
    f.write("#!/bin/sh\necho PAGER-START\ncat\necho PAGER-END\n")
os.chmod(pager, 0o755)
sh = Shell({"FLOE_PAGER": pager}, rows=24, cols=80)
sh.expect(PROMPT)
sh.send("select * from generate_series(1, 100) g;\r")
got = sh.expect(r"\(100 rows\)\nPAGER-END\n")
check("a tall result goes through the pager", got is not None and "PAGER-START" in got
      and "PAGER-END" in got, repr(got[-200:] if got else got))
sh.expect(PROMPT)
sh.send("select 1 as short;\r")
got = sh.expect(r"\(1 row\)")
check("a short result is not paged", got is not None and "PAGER-START" not in got, repr(got))
sh.expect(PROMPT)
sh.send("select repeat('x', 120) as wide;\r")
got = sh.expect(r"\(1 row\)\nPAGER-END\n")
check("a wide result goes through the pager", got is not None and "PAGER-START" in got, repr(got))
sh.expect(PROMPT)
sh.send("\\pset pager off\r")
sh.expect(r"Pager usage is off\.")
sh.send("select * from generate_series(1, 100) g;\r")
got = sh.expect(r"\(100 rows\)")
check("\\pset pager off streams a tall result", got is not None and "PAGER-START" not in got, repr(got))
sh.expect(PROMPT)
sh.send("\\pset pager always\r")
sh.expect(r"Pager usage is always\.")
sh.send("select 2 as short;\r")
got = sh.expect(r"PAGER-END")
check("\\pset pager always pages a short result", got is not None and "PAGER-START" in got, repr(got))
sh.expect(PROMPT)
sh.send("\x04")
sh.wait_exit()

# 6. Ctrl-D on an empty line exits.
sh = Shell()
sh.expect(PROMPT)
sh.send("\x04")
code = sh.wait_exit()
check("Ctrl-D on an empty line exits with status 0", code == 0, repr(code))
if code is None:
    sh.kill()

print("%d failure(s)" % fails)
sys.exit(1 if fails else 0)
