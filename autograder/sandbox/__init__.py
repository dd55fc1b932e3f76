"""The sandbox: where a submission's cells and the hidden probes run, walled off from the grader.

The map: four hops, each a process, each owned by one file.

```
grader (run.py)                 the instructor's process: sends cells, then one probe at a time;
  │  socketpair, JSON frames     times every step, meters memory, decodes plain results, says how
  │                              the run ended (RunOutcome). Trusts nothing the child says.
  ▼
zygote (zygote.py)              imports JAX, NumPy and matplotlib once, never starts a backend and
  │  fork per run                never runs student code; forks one child per run, reaps them,
  │                              kills what a finished child left behind (a subreaper).
  ▼
stand-by parent (privileges.py) where a PID namespace is made, the forked child waits here as its
  │  fork into new namespaces    parent and passes on its exit status; nothing else.
  ▼
child (child.py)                set-up → cells → probes: confines itself (privileges.py: namespaces,
                                 new root, uid, capabilities, seccomp; landlock.py; limits.py:
                                 rlimits), starts JAX (xla_cache.py), reports `ready` or a `fault`,
                                 runs the cells (execution.py), then each probe the grader asks for.
```

Rules each hop keeps:

- **grader** — a failure before `ready` is the grader's (`fault` → row `error`); after it, any
  frame it cannot decode, a result it did not ask for, or sizes over the caps is `tampered`.
  Nothing the child reports can make a score stand on its own: gates are decided outside
  (grading/gates.py, grading/reading.py), values are judged against a reference computed in a
  sandbox that never ran student code.
- **zygote** — its environment is an allowlist; it holds no secret, no hidden test, no
  reference; it never imports anything a submission names.
- **child** — confined before the first student byte runs; hidden tests enter only after the
  last cell, without the batch's seed; between steps it checks its own code and the libraries'
  (integrity.py: a snapshot taken before student code, compared by identity with tools read by
  position from the snapshot, never from a global) and reports what changed. The checks run as
  new functions made from code objects bound before student code, with a tuple bound then as
  their only input (child.py's `_execute` says why that holds).
- **parts** (grading/parts.py) — a lone submission may run in two children at once; the merge
  gives the outcome one child would have given.

Files: run.py (grader side), zygote.py, child.py, execution.py (cells as IPython runs them),
privileges.py (who the child is), landlock.py, limits.py (rlimits, cgroups, the memory meter),
integrity.py (evidence of tampering), xla_cache.py (the shared compilation cache).
"""
