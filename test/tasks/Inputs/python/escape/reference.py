def run(x):
    # A reference is contained: the host's files are out of reach.
    with open("/etc/passwd") as f:
        f.read()
    return x
