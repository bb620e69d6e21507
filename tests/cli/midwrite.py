"""Do something to posenc while it writes -o FILE (tests/cli/t_reliability.sh).

    midwrite.py DIR ACTION POSENC ARGS...

runs POSENC ARGS (its stderr passes through, no core dumps), waits until a
".posenc-" temporary file in DIR has bytes, then
    NAME        sends SIGNAME (TERM, QUIT, RTMIN, ...) and waits;
    mv:NEWDIR   stops posenc, renames DIR to NEWDIR, lets it go on, waits;
    mkdir:PATH  stops posenc, makes a directory PATH (where -o FILE goes),
                lets it go on, waits.
Prints one line: "signal" when posenc ended by the signal sent, else its
exit status, then the sorted names in DIR (NEWDIR after mv); or
"no-temp-file" when posenc ended before writing one.
"""
import os
import resource
import signal
import subprocess
import sys
import time


def no_core():
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def main():
    d, action, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
    p = subprocess.Popen(cmd, preexec_fn=no_core)
    tmp = []
    for _ in range(1000):
        tmp = [f for f in os.listdir(d) if f.startswith(".posenc-")]
        if p.poll() is not None or (tmp and os.path.getsize(os.path.join(d, tmp[0])) > 0):
            break
        time.sleep(0.005)
    if p.poll() is not None or not tmp:
        p.kill()
        p.wait()
        print("no-temp-file")
        return
    sig = None
    if action.startswith("mv:") or action.startswith("mkdir:"):
        p.send_signal(signal.SIGSTOP)
        kind, arg = action.split(":", 1)
        if kind == "mv":
            os.rename(d, arg)
            d = arg
        else:
            os.mkdir(arg)
        p.send_signal(signal.SIGCONT)
    else:
        sig = getattr(signal, "SIG" + action)
        p.send_signal(sig)
    st = p.wait()
    print(" ".join(["signal" if sig is not None and st == -sig else str(st)] +
                   sorted(os.listdir(d))))


main()
