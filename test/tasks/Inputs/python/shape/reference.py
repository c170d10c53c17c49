def run(x):
    return x[:-1]
