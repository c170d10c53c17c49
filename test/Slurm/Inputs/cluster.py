"""A single-node Slurm cluster for tests, on loopback, in one folder.

    with Cluster(folder) as cluster:
        cluster.run(["sbatch", ...])

The folder gets a munge key, a slurm.conf for this machine (its real CPU
count and memory, from `slurmd -C`), the state, spool, log and pid files.
munged, slurmctld and slurmd run as daemons on free ports of 127.0.0.1.

Everything started is stopped whatever happens: `scontrol shutdown`, then
the daemons and every process of the cluster's jobs are killed by pid. The
processes are found by their pid files and by a marker variable
(PTXBENCH_SLURM_CLUSTER=<folder>) that every daemon, job step and job
inherits, so nothing of another cluster or user is touched. A watchdog
process in its own session does the same if the test process dies without
cleaning up (killed by lit's timeout), or after a hard limit.
"""
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

MARKER = "PTXBENCH_SLURM_CLUSTER"
DAEMONS = ("slurmd", "slurmctld", "munged")


class ClusterError(Exception):
    pass


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def find(program):
    for d in (None, "/usr/sbin", "/sbin"):
        path = shutil.which(program, path=d) if d else shutil.which(program)
        if path:
            return path
    raise ClusterError(
        "%s not found: utils/setup.sh installs Slurm and munge (Debian's "
        "slurmctld, slurmd, slurm-client and munge)" % program)


def node_resources():
    """The node's CPUs and memory (MiB) as slurmd sees them."""
    out = subprocess.run([find("slurmd"), "-C"], capture_output=True,
                         text=True, timeout=30).stdout
    fields = dict(f.split("=", 1) for f in out.split() if "=" in f)
    try:
        return int(fields["CPUs"]), int(fields["RealMemory"])
    except (KeyError, ValueError):
        raise ClusterError("cannot read the node's resources from "
                           "'slurmd -C': %r" % out)


def listening(port):
    """The IPv4 and IPv6 addresses a TCP port listens on (/proc/net)."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                lines = f.read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            address, hexport = local.split(":")
            if state != "0A" or int(hexport, 16) != port:
                continue
            if len(address) == 8:
                found.append(socket.inet_ntop(
                    socket.AF_INET, bytes.fromhex(address)[::-1]))
            else:
                raw = bytes.fromhex(address)
                found.append(socket.inet_ntop(socket.AF_INET6, b"".join(
                    raw[i:i + 4][::-1] for i in range(0, 16, 4))))
    return found


def processes_left(cluster):
    """Job processes (marked) and daemons of `cluster` still alive."""
    return marked_pids(cluster.folder) + [
        p for p in (read_pid(cluster.path(n + ".pid")) for n in DAEMONS)
        if p and alive(p)]


def marked_pids(folder):
    """Processes whose environment carries this cluster's marker."""
    needle = ("%s=%s" % (MARKER, folder)).encode() + b"\0"
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open("/proc/%s/environ" % entry, "rb") as f:
                if needle in f.read() + b"\0":
                    pids.append(int(entry))
        except OSError:
            pass
    return pids


def read_pid(path):
    try:
        with open(path) as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie is dead for our purposes.
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def kill_all(folder, grace=3.0):
    """SIGTERM, then SIGKILL, to the daemons (by pid file) and to every
    process carrying the marker."""
    def targets():
        pids = set(marked_pids(folder))
        for name in DAEMONS:
            pid = read_pid(os.path.join(folder, name + ".pid"))
            if pid and pid != os.getpid():
                pids.add(pid)
        return [p for p in pids if alive(p)]

    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 2.0)):
        pids = targets()
        if not pids:
            return []
        for pid in pids:
            try:
                os.kill(pid, sig)
            except OSError:
                pass
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and any(alive(p) for p in pids):
            time.sleep(0.05)
    return [p for p in targets()]


def watchdog(parent, folder, limit):
    """Runs in its own session: cleans up when `parent` is gone or after
    `limit` seconds, whichever comes first."""
    deadline = time.monotonic() + limit
    while alive(parent) and time.monotonic() < deadline:
        if os.path.exists(os.path.join(folder, "stopped")):
            return
        time.sleep(0.5)
    if not os.path.exists(os.path.join(folder, "stopped")):
        kill_all(folder)


class Cluster:
    def __init__(self, folder, limit=600, gpus=0):
        self.folder = os.path.abspath(folder)
        self.gpus = gpus
        self.limit = limit
        self.conf = os.path.join(self.folder, "slurm.conf")
        self.env = dict(os.environ)
        self.env["SLURM_CONF"] = self.conf
        self.env[MARKER] = self.folder
        # Slurm's client commands read these; a user's own would point
        # elsewhere.
        for var in ("SLURM_CLUSTERS", "SQUEUE_FORMAT", "SBATCH_PARTITION",
                    "SLURM_JOB_ID", "SLURM_ARRAY_JOB_ID"):
            self.env.pop(var, None)

    def path(self, name):
        return os.path.join(self.folder, name)

    def log_tails(self, lines=25):
        out = []
        for name in ("slurmctld.log", "slurmd.log", "munged.log"):
            try:
                with open(self.path(name), errors="replace") as f:
                    tail = f.read().splitlines()[-lines:]
            except OSError:
                tail = ["(no log)"]
            out.append("--- last lines of %s ---" % self.path(name))
            out.extend(tail)
        return "\n".join(out)

    def run(self, argv, timeout=30, check=True):
        result = subprocess.run(argv, env=self.env, capture_output=True,
                                text=True, timeout=timeout)
        if check and result.returncode != 0:
            raise ClusterError("'%s' failed (exit %d): %s%s" % (
                " ".join(argv), result.returncode, result.stdout,
                result.stderr))
        return result

    def __enter__(self):
        os.makedirs(self.folder, exist_ok=True)
        self.watchdog = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "watchdog",
             str(os.getpid()), self.folder, str(self.limit)],
            start_new_session=True, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def start(self, timeout=60):
        deadline = time.monotonic() + timeout
        for d in ("state", "spool"):
            os.makedirs(self.path(d), exist_ok=True)
        os.chmod(self.folder, 0o755)

        # munge: a generated key, its own socket (a socket path must stay
        # under 108 bytes; a deep build folder gets a short one in /tmp).
        key = self.path("munge.key")
        self.socket = self.path("munge.sock")
        if len(self.socket) > 100:
            import tempfile
            self.short = tempfile.mkdtemp(prefix="ptxbench-munge-")
            os.chmod(self.short, 0o755)
            self.socket = os.path.join(self.short, "munge.sock")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o600)
        self.run([find("munged"), "--force", "--socket=" + self.socket,
                  "--key-file=" + key, "--pid-file=" + self.path("munged.pid"),
                  "--log-file=" + self.path("munged.log"),
                  "--seed-file=" + self.path("munged.seed")])

        cpus, memory = node_resources()
        self.cpus = cpus
        ctld_port, slurmd_port = free_port(), free_port()
        while slurmd_port == ctld_port:
            slurmd_port = free_port()
        self.ports = {"slurmctld": ctld_port, "slurmd": slurmd_port}
        host = socket.gethostname().split(".")[0]
        node_gres = ""
        conf = []
        if self.gpus:
            # GPUs as a gres, so that jobs asking for --gres=gpu:G get
            # CUDA_VISIBLE_DEVICES. The device files stand in for GPUs the
            # machine need not have: Slurm requires character devices,
            # and only names them (no cgroups to confine a job to them).
            devices = [self.path("gpu%d" % i) for i in range(self.gpus)]
            for d in devices:
                if not os.path.lexists(d):
                    os.symlink("/dev/null", d)
            with open(self.path("gres.conf"), "w") as f:
                f.write("AutoDetect=off\n")
                for d in devices:
                    f.write("NodeName=localhost Name=gpu File=%s\n" % d)
            conf.append("GresTypes=gpu")
            node_gres = " Gres=gpu:%d" % self.gpus
        conf += [
            "ClusterName=ptxbench-test",
            # The controller is this host, reached on loopback only.
            "SlurmctldHost=%s(127.0.0.1)" % host,
            "SlurmctldPort=%d" % ctld_port,
            "SlurmdPort=%d" % slurmd_port,
            "CommunicationParameters=NoCtldInAddrAny,NoInAddrAny",
            "SlurmUser=root",
            "SlurmdUser=root",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            "AuthInfo=socket=%s" % self.socket,
            "StateSaveLocation=%s" % self.path("state"),
            "SlurmdSpoolDir=%s" % self.path("spool"),
            "SlurmctldPidFile=%s" % self.path("slurmctld.pid"),
            "SlurmdPidFile=%s" % self.path("slurmd.pid"),
            "SlurmctldLogFile=%s" % self.path("slurmctld.log"),
            "SlurmdLogFile=%s" % self.path("slurmd.log"),
            "SlurmctldDebug=info",
            "SlurmdDebug=info",
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none",
            "JobCompType=jobcomp/none",
            "SelectType=select/cons_tres",
            # CPUs are the consumable; memory is not, so a job that asks
            # for none does not take the whole node.
            "SelectTypeParameters=CR_CPU",
            "SchedulerType=sched/builtin",
            "MpiDefault=none",
            "ReturnToService=2",
            "KillWait=5",
            # Finished jobs stay visible to scontrol for the whole test.
            "MinJobAge=3600",
            "NodeName=localhost NodeAddr=127.0.0.1 CPUs=%d RealMemory=%d%s "
            "State=UNKNOWN" % (cpus, memory, node_gres),
            "PartitionName=test Nodes=localhost Default=YES "
            "MaxTime=INFINITE State=UP",
        ]
        with open(self.conf, "w") as f:
            f.write("\n".join(conf) + "\n")

        self.run([find("slurmctld"), "-f", self.conf, "-i"])
        self.run([find("slurmd"), "-f", self.conf, "-N", "localhost"])
        # Up when the node is idle.
        state = ""
        while time.monotonic() < deadline:
            r = self.run(["sinfo", "-h", "-n", "localhost", "-o", "%T"],
                         check=False)
            state = r.stdout.strip()
            if r.returncode == 0 and state in ("idle", "mixed",
                                                "allocated"):
                self.check_loopback()
                return
            time.sleep(0.3)
        raise ClusterError("the node did not come up within %ds (state "
                           "'%s')\n%s" % (timeout, state, self.log_tails()))

    def check_loopback(self):
        """Both daemons listen on 127.0.0.1 and nowhere else."""
        for name, port in self.ports.items():
            addresses = listening(port)
            if addresses != ["127.0.0.1"]:
                raise ClusterError("%s listens on %s, port %d, not on "
                                   "127.0.0.1 only" % (name, addresses, port))

    def stop(self):
        """scontrol shutdown (after cancelling what is left), then kill by
        pid whatever still runs. Returns the pids that would not die."""
        try:
            if os.path.exists(self.conf):
                self.run(["scancel", "--full", "--user=root"], timeout=10,
                         check=False)
                self.run(["scontrol", "shutdown"], timeout=10, check=False)
                deadline = time.monotonic() + 10
                while time.monotonic() < deadline and any(
                        alive(p) for p in (read_pid(self.path(n + ".pid"))
                                           for n in ("slurmctld", "slurmd"))
                        if p):
                    time.sleep(0.1)
        except (subprocess.SubprocessError, OSError):
            pass
        left = kill_all(self.folder)
        with open(self.path("stopped"), "w") as f:
            f.write("stopped\n")
        if getattr(self, "short", None):
            shutil.rmtree(self.short, ignore_errors=True)
        return left


if __name__ == "__main__" and len(sys.argv) == 5 and \
        sys.argv[1] == "watchdog":
    watchdog(int(sys.argv[2]), sys.argv[3], float(sys.argv[4]))
