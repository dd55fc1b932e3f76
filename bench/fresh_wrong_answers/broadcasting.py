"""Wrong (and a few right) answers to 01-broadcasting, written from the student prompts alone
before the known-wrong answers in solutions/01-broadcasting/mutants/ were read: the unseen set
`bench/known_mistakes.py --fresh` grades, to measure how often a known mistake is named, and
named wrongly. Each entry: (name, question, the cell a student would submit, wrong?)."""

FRESH = [
    (
        "q1_left_aligned",
        "q1",
        """
def broadcast_shape(*shapes):
    n = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(n):
        dims = [s[i] for s in shapes if i < len(s)]
        big = [d for d in dims if d != 1]
        if len(set(big)) > 1:
            raise ValueError("incompatible")
        out.append(big[0] if big else 1)
    return tuple(out)
""",
        True,
    ),
    (
        "q1_zero_like_one",
        "q1",
        """
def broadcast_shape(*shapes):
    n = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(1, n + 1):
        dims = [s[-i] for s in shapes if i <= len(s)]
        big = [d for d in dims if d > 1]
        if len(set(big)) > 1:
            raise ValueError("incompatible")
        out.append(max(dims))
    return tuple(reversed(out))
""",
        True,
    ),
    (
        "q1_asymmetric",
        "q1",
        """
def broadcast_shape(*shapes):
    if not shapes:
        return ()
    result = list(shapes[0])
    for s in shapes[1:]:
        a, b = result, list(s)
        if len(a) < len(b):
            a = [1] * (len(b) - len(a)) + a
        else:
            b = [1] * (len(a) - len(b)) + b
        out = []
        for x, y in zip(a, b):
            if x == y or y == 1:
                out.append(x)
            elif x == 1:
                out.append(y)
            else:
                raise ValueError("incompatible")
        result = out
    return result
""",
        True,
    ),
    (
        "q2_transposed",
        "q2",
        """
def outer(x, y):
    return x[None, :] * y[:, None]
""",
        True,
    ),
    (
        "q2_sum_not_product",
        "q2",
        """
def outer(x, y):
    return x[:, None] + y[None, :]
""",
        True,
    ),
    (
        "q3_no_clamp",
        "q3",
        """
import jax.numpy as jnp
def pairwise_sq_dists(X, Y):
    xx = jnp.sum(X * X, axis=1)[:, None]
    yy = jnp.sum(Y * Y, axis=1)[None, :]
    return xx + yy - 2 * X @ Y.T
""",
        True,
    ),
    (
        "q3_not_squared",
        "q3",
        """
import jax.numpy as jnp
def pairwise_sq_dists(X, Y):
    return jnp.sqrt(jnp.sum((X[:, None, :] - Y[None, :, :]) ** 2, axis=-1))
""",
        True,
    ),
    (
        "q3_l1",
        "q3",
        """
import jax.numpy as jnp
def pairwise_sq_dists(X, Y):
    return jnp.sum(jnp.abs(X[:, None, :] - Y[None, :, :]), axis=-1)
""",
        True,
    ),
    (
        "q4_ddof1",
        "q4",
        """
import jax.numpy as jnp
def standardize(X, axis=0, eps=1e-8):
    mean = jnp.mean(X, axis=axis, keepdims=True)
    std = jnp.std(X, axis=axis, keepdims=True, ddof=1)
    return (X - mean) / (std + eps)
""",
        True,
    ),
    (
        "q4_eps_in_sqrt",
        "q4",
        """
import jax.numpy as jnp
def standardize(X, axis=0, eps=1e-8):
    mean = jnp.mean(X, axis=axis, keepdims=True)
    var = jnp.var(X, axis=axis, keepdims=True)
    return (X - mean) / jnp.sqrt(var + eps)
""",
        True,
    ),
    (
        "q4_ignores_axis",
        "q4",
        """
import jax.numpy as jnp
def standardize(X, axis=0, eps=1e-8):
    mean = jnp.mean(X, axis=0, keepdims=True)
    std = jnp.std(X, axis=0, keepdims=True)
    return (X - mean) / (std + eps)
""",
        True,
    ),
    (
        "q4_no_eps",
        "q4",
        """
import jax.numpy as jnp
def standardize(X, axis=0, eps=1e-8):
    mean = jnp.mean(X, axis=axis, keepdims=True)
    std = jnp.std(X, axis=axis, keepdims=True)
    return (X - mean) / std
""",
        True,
    ),
    (
        "q5_naive",
        "q5",
        """
import jax.numpy as jnp
def softmax(x, axis=-1):
    e = jnp.exp(x)
    return e / jnp.sum(e, axis=axis, keepdims=True)
""",
        True,
    ),
    (
        "q5_global_max",
        "q5",
        """
import jax.numpy as jnp
def softmax(x, axis=-1):
    e = jnp.exp(x - jnp.max(x))
    return e / jnp.sum(e, axis=axis, keepdims=True)
""",
        True,
    ),
    (
        "q5_sum_all",
        "q5",
        """
import jax.numpy as jnp
def softmax(x, axis=-1):
    e = jnp.exp(x - jnp.max(x, axis=axis, keepdims=True))
    return e / jnp.sum(e)
""",
        True,
    ),
    (
        "q6_bool",
        "q6",
        """
import jax.numpy as jnp
def one_hot(labels, num_classes):
    return labels[..., None] == jnp.arange(num_classes)
""",
        True,
    ),
    (
        "q6_eye_gather",
        "q6",
        """
import jax.numpy as jnp
def one_hot(labels, num_classes):
    return jnp.eye(num_classes, dtype=jnp.float32)[labels]
""",
        True,
    ),
    (
        "q6_classes_first",
        "q6",
        """
import jax.numpy as jnp
def one_hot(labels, num_classes):
    return (jnp.arange(num_classes)[:, None] == jnp.ravel(labels)[None, :]).astype(jnp.float32)
""",
        True,
    ),
    (
        "q7_first_position",
        "q7",
        """
def add_positional(tokens, positions):
    return tokens + positions[0]
""",
        True,
    ),
    (
        "q7_sliced",
        "q7",
        """
def add_positional(tokens, positions):
    return tokens + positions[None, : tokens.shape[1]]
""",
        True,
    ),
    (
        "q8_adds",
        "q8",
        """
import jax.numpy as jnp
def set_diagonal(M, v):
    k = min(M.shape)
    i = jnp.arange(k)
    return M.at[i, i].add(v)
""",
        True,
    ),
    (
        "q8_eye_broadcast",
        "q8",
        """
import jax.numpy as jnp
def set_diagonal(M, v):
    eye = jnp.eye(M.shape[0], M.shape[1], dtype=M.dtype)
    return M * (1 - eye) + eye * v
""",
        True,
    ),
    (
        "q9_plain_index",
        "q9",
        """
def take_or_fill(x, idx, fill):
    return x[idx]
""",
        True,
    ),
    (
        "q9_no_negative",
        "q9",
        """
import jax.numpy as jnp
def take_or_fill(x, idx, fill):
    n = x.shape[0]
    return jnp.where((idx >= 0) & (idx < n), x[idx], fill)
""",
        True,
    ),
    (
        "q9_abs",
        "q9",
        """
import jax.numpy as jnp
def take_or_fill(x, idx, fill):
    n = x.shape[0]
    return jnp.where(jnp.abs(idx) < n, x[idx], fill)
""",
        True,
    ),
    (
        "q9_upper_only",
        "q9",
        """
import jax.numpy as jnp
def take_or_fill(x, idx, fill):
    return jnp.where(idx < x.shape[0], x[idx], fill)
""",
        True,
    ),
    (
        "q10_wraps",
        "q10",
        """
def brighten(img, delta):
    return img + delta
""",
        True,
    ),
    (
        "q10_clip_after_wrap",
        "q10",
        """
import jax.numpy as jnp
def brighten(img, delta):
    return jnp.clip(img + delta, 0, 255)
""",
        True,
    ),
    (
        "q10_int32_result",
        "q10",
        """
import jax.numpy as jnp
def brighten(img, delta):
    return jnp.clip(img.astype(jnp.int32) + delta, 0, 255)
""",
        True,
    ),
    (
        "q10_upper_only",
        "q10",
        """
import jax.numpy as jnp
def brighten(img, delta):
    return jnp.minimum(img.astype(jnp.int32) + delta, 255).astype(jnp.uint8)
""",
        True,
    ),
    (
        "q10_float_truncate",
        "q10",
        """
import jax.numpy as jnp
def brighten(img, delta):
    y = jnp.clip(img / 255.0 + delta / 255.0, 0.0, 1.0)
    return (y * 255).astype(jnp.uint8)
""",
        True,
    ),
    (
        "q2_column_times_row",
        "q2",
        """
def outer(x, y):
    return x[:, None] * y
""",
        False,
    ),
    # right answers written differently from the course's reference: never given a mistake
    (
        "q5_library",
        "q5",
        """
import jax
def softmax(x, axis=-1):
    return jax.nn.softmax(x, axis=axis)
""",
        False,
    ),
    (
        "q6_library_style",
        "q6",
        """
import jax.numpy as jnp
def one_hot(labels, num_classes):
    return jnp.where(labels[..., None] == jnp.arange(num_classes), 1.0, 0.0).astype(jnp.float32)
""",
        False,
    ),
    (
        "q9_fill_mode",
        "q9",
        """
def take_or_fill(x, idx, fill):
    return x.at[idx].get(mode="fill", fill_value=fill)
""",
        False,
    ),
    (
        "q10_int16",
        "q10",
        """
import jax.numpy as jnp
def brighten(img, delta):
    return jnp.clip(img.astype(jnp.int16) + delta, 0, 255).astype(jnp.uint8)
""",
        False,
    ),
    (
        "q3_clamped_expansion",
        "q3",
        """
import jax.numpy as jnp
def pairwise_sq_dists(X, Y):
    xx = jnp.sum(X * X, axis=1)[:, None]
    yy = jnp.sum(Y * Y, axis=1)[None, :]
    return jnp.maximum(xx + yy - 2 * X @ Y.T, 0.0)
""",
        False,
    ),
]
