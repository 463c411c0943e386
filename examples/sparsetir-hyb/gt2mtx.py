#!/usr/bin/env python3
"""Convert a graph-tool .gt(.gz) graph to a Matrix Market adjacency matrix.

    gt2mtx.py GRAPH.gt.gz OUT.mtx

The gt format (graph-tool's documentation, "The gt file format"): the magic
bytes e2 9b be 20 67 74, a version byte, an endianness byte, a comment string
(uint64 length, bytes), a directed flag byte, the vertex count N (uint64),
then for each vertex its out-neighbour count (uint64) and the neighbours, each
1, 2, 4 or 8 bytes wide as N fits in 2^8, 2^16, 2^32 or not. Property maps
follow and are not read. An undirected graph's edges are written both ways
(a symmetric matrix, as a GNN's adjacency); repeated edges once.
"""
import gzip
import struct
import sys


def read_gt(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        d = f.read()
    if d[:6] != b"\xe2\x9b\xbe gt":
        sys.exit(f"{path}: not a gt file (bad magic bytes)")
    if d[6] != 1:
        sys.exit(f"{path}: gt version {d[6]}, expected 1")
    e = ">" if d[7] else "<"
    (clen,) = struct.unpack(e + "Q", d[8:16])
    p = 16 + clen
    directed = d[p] != 0
    (n,) = struct.unpack(e + "Q", d[p + 1:p + 9])
    p += 9
    width = 1 if n <= 1 << 8 else 2 if n <= 1 << 16 else 4 if n <= 1 << 32 else 8
    code = {1: "B", 2: "H", 4: "I", 8: "Q"}[width]
    edges = set()
    for v in range(n):
        (k,) = struct.unpack(e + "Q", d[p:p + 8])
        p += 8
        for u in struct.unpack(e + code * k, d[p:p + k * width]):
            if u >= n:
                sys.exit(f"{path}: vertex {v} has neighbour {u} >= {n}")
            edges.add((v, u))
            if not directed:
                edges.add((u, v))
        p += k * width
    return n, sorted(edges)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: gt2mtx.py GRAPH.gt[.gz] OUT.mtx")
    n, edges = read_gt(sys.argv[1])
    with open(sys.argv[2], "w") as out:
        out.write("%%MatrixMarket matrix coordinate pattern general\n")
        out.write(f"{n} {n} {len(edges)}\n")
        for v, u in edges:
            out.write(f"{v + 1} {u + 1}\n")


main()
