"""Chooses the phase with Python ifs on step: right on plain ints, but it fails once step is traced.
Choose between the phases with jnp.where (or lax.cond)."""

import math


def lr_schedule(step, base_lr, warmup, total):
    if step < warmup:
        return base_lr * (step + 1) / warmup
    if step < total:
        return base_lr * 0.5 * (1 + math.cos(math.pi * (step - warmup) / (total - warmup)))
    return 0.0
