import socket


def run(x):
    socket.create_connection(("127.0.0.1", 9), timeout=1)
    return x
