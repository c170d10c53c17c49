def run(x, factor, N):
    assert x.dtype.is_floating_point and x.shape == (N,)
    return x * factor
