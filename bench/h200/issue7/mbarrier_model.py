"""Shared machinery of issue 7's mbarrier protocol models (CPU only, no numpy).

Used by round3/mha_fwd/protocol_model.py, round3/gemm_fp8/protocol_model.py and
round5/mha_fwd/protocol_model.py; each keeps its own kernel-specific actors (producer, consumers,
buffers, checks) and imports from here:
  - MBarrier: an mbarrier with PTX ISA semantics: expected arrival count, pending arrivals, a
    signed tx-count; the current phase completes when both reach 0; try_wait.parity P succeeds
    once the phase of parity P has completed;
  - tma_load / land_load: a TMA load as the model sees it, arrive.expect_tx(1 unit) when issued,
    the tag written into the buffer and complete_tx(1) when it lands;
  - run_interleaved: the random scheduler, agents (Python generators, one step per next()) and
    in-flight copies interleaved at random, with deadlock detection.
All randomness comes from the caller's seeded random.Random, so every run is reproducible.
Not a script: the protocol models import it.
"""


class MBarrier:
    """One mbarrier: count arrivals per phase, pending arrivals and tx-count of the current one."""

    def __init__(self, count):
        self.count, self.pending, self.phase, self.tx = count, count, 0, 0

    def arrive(self, n=1, tx=0):
        """n arrivals; tx > 0 is mbarrier.arrive.expect_tx (the tx-count is raised first)."""
        self.tx += tx
        self.pending -= n
        assert self.pending >= 0, 'more arrivals than the count'
        self._maybe_flip()

    def complete_tx(self, b):
        """A copy's complete_tx: b units of the transaction landed."""
        self.tx -= b
        self._maybe_flip()

    def _maybe_flip(self):
        if self.pending == 0 and self.tx == 0:
            self.phase += 1
            self.pending = self.count

    def try_wait(self, parity):
        """try_wait.parity: true once the phase with this parity completed, i.e. while the
        current phase has the other parity."""
        return (self.phase & 1) != parity

    def wait(self, parity):
        """The try_wait loop of an agent (use with yield from): one step per failed try."""
        while not self.try_wait(parity):
            yield


def tma_load(inflight, bar, buf, idx, tag):
    """Issue a TMA load: expect_tx of one unit on bar now; land_load writes tag into buf[idx]
    and completes the transaction when run_interleaved picks the copy."""
    bar.arrive(1, tx=1)
    inflight.append((bar, buf, idx, tag))


def land_load(copy):
    bar, buf, idx, tag = copy
    buf[idx] = tag
    bar.complete_tx(1)


def run_interleaved(agents, inflight, rnd, land=land_load, p_land=0.3, patience=200000):
    """Run agents and in-flight copies in a random interleaving until all are done.

    Each round lands a random in-flight copy with probability p_land (land(copy) performs it;
    the agents may issue new ones into inflight), otherwise advances a randomly chosen live
    agent by one step. RuntimeError('deadlock') after more than patience agent steps in a row
    with no copy landed and no agent finished.
    """
    alive = list(agents)
    stuck = 0
    while alive or inflight:
        if inflight and rnd.random() < p_land:
            land(inflight.pop(rnd.randrange(len(inflight))))
            stuck = 0
            continue
        if not alive:
            continue
        a = rnd.choice(alive)
        try:
            next(a)
        except StopIteration:
            alive.remove(a)
            stuck = 0
        stuck += 1
        if stuck > patience:
            raise RuntimeError('deadlock')
