def run(x, eps):
    return x + eps
