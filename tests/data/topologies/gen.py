#!/usr/bin/python3
"""Writes the hwloc XML topologies the placement tests load (tests/test_place.c, tests/place.cmake): shapes of
machines this harness is for, written from their public core and cache counts, not gathered from the machines.
  snapdragon-x-elite.xml  1 package, 3 clusters of 4 Oryon cores, each cluster one 12 MiB L2, no L3
  intel-hybrid.xml        1 package, 18 MiB L3; 4 P cores (2 PUs, own 1.25 MiB L2) and 8 E cores in 2 clusters
                          of 4 (one 2 MiB L2 each); cpukinds IntelCore (P) and IntelAtom (E)
  server-2s.xml           2 packages, a NUMA node each, 3 L3s of 32 MiB per package over 4 cores of 2 PUs;
                          PUs numbered as Linux does: every core's first PU, then the second ones
Run it from this folder to write them again."""

MIB = 1 << 20


class Gen:
    def __init__(self):
        self.gp = 1
        self.lines = []

    def mask(self, pus):
        v = 0
        for p in pus:
            v |= 1 << p
        words = []
        while True:
            words.append("0x%08x" % (v & 0xFFFFFFFF))
            v >>= 32
            if not v:
                break
        return ",".join(reversed(words))

    def obj(self, depth, typ, pus, nodes, extra="", os_index=None, children=None):
        self.gp += 1
        cs, ns = self.mask(pus), self.mask(nodes)
        osi = ' os_index="%d"' % os_index if os_index is not None else ""
        head = '%s<object type="%s"%s cpuset="%s" complete_cpuset="%s" nodeset="%s" complete_nodeset="%s" gp_index="%d"%s' % (
            "  " * depth, typ, osi, cs, cs, ns, ns, self.gp, extra)
        if not children:
            self.lines.append(head + "/>")
            return
        self.lines.append(head + ">")
        for c in children:
            c(depth + 1)
        self.lines.append("%s</object>" % ("  " * depth))


def cache(level, size):
    return ' cache_size="%d" depth="%d" cache_linesize="64" cache_associativity="0" cache_type="0"' % (size, level)


def core(g, core_os, pus, node):
    def make(d):
        g.obj(d, "L1Cache", pus, [node], cache(1, 48 << 10), children=[
            lambda d2: g.obj(d2, "Core", pus, [node], os_index=core_os, children=[
                (lambda p: lambda d3: g.obj(d3, "PU", [p], [node], os_index=p))(p) for p in pus])])
    return make


def numa(g, node, pus):
    return lambda d: g.obj(d, "NUMANode", pus, [node], ' local_memory="%d"' % (16 << 30), os_index=node)


def write(name, g, machine_pus, nodes, kinds, package_children):
    top = ['<?xml version="1.0" encoding="UTF-8"?>', '<!DOCTYPE topology SYSTEM "hwloc2.dtd">', '<topology version="2.0">']
    g.lines = []
    g.obj(1, "Machine", machine_pus, nodes, os_index=0, children=package_children)
    kind_lines = []
    for pus, eff, core_type in kinds:
        kind_lines += ['  <cpukind cpuset="%s" forced_efficiency="%d">' % (g.mask(pus), eff),
                       '    <info name="CoreType" value="%s"/>' % core_type, "  </cpukind>"]
    text = "\n".join(top + g.lines + kind_lines + ["</topology>", ""])
    with open(name, "w") as f:
        f.write(text)


def snapdragon():
    g = Gen()
    pus = list(range(12))

    def package(d):
        g.obj(d, "Package", pus, [0], os_index=0, children=[numa(g, 0, pus)] + [
            (lambda c: lambda d2: g.obj(d2, "L2Cache", list(range(4 * c, 4 * c + 4)), [0], cache(2, 12 * MIB), children=[
                core(g, i, [i], 0) for i in range(4 * c, 4 * c + 4)]))(c) for c in range(3)])
    write("snapdragon-x-elite.xml", g, pus, [0], [], [package])


def intel_hybrid():
    g = Gen()
    pus = list(range(16))
    p_cores = [core_l2(g, i, [2 * i, 2 * i + 1]) for i in range(4)]
    e_clusters = [(lambda c: lambda d: g.obj(d, "L2Cache", list(range(8 + 4 * c, 12 + 4 * c)), [0], cache(2, 2 * MIB),
                                            children=[core(g, 4 + 4 * c + k, [8 + 4 * c + k], 0) for k in range(4)]))(c)
                  for c in range(2)]

    def package(d):
        g.obj(d, "Package", pus, [0], os_index=0, children=[numa(g, 0, pus), lambda d2: g.obj(
            d2, "L3Cache", pus, [0], cache(3, 18 * MIB), children=p_cores + e_clusters)])
    write("intel-hybrid.xml", g, pus, [0], [(list(range(8, 16)), 0, "IntelAtom"), (list(range(8)), 1, "IntelCore")],
          [package])


def core_l2(g, core_os, pus):
    return lambda d: g.obj(d, "L2Cache", pus, [0], cache(2, 1280 << 10), children=[core(g, core_os, pus, 0)])


def server():
    g = Gen()
    pus = list(range(48))

    def l3(s, k):
        cores = [12 * s + 4 * k + i for i in range(4)]
        ps = sorted(cores + [c + 24 for c in cores])
        return lambda d: g.obj(d, "L3Cache", ps, [s], cache(3, 32 * MIB), children=[
            core(g, c, [c, c + 24], s) for c in cores])

    def package(s):
        ps = sorted([12 * s + i for i in range(12)] + [24 + 12 * s + i for i in range(12)])
        return lambda d: g.obj(d, "Package", ps, [s], os_index=s, children=[numa(g, s, ps)] + [l3(s, k) for k in range(3)])
    write("server-2s.xml", g, pus, [0, 1], [], [package(0), package(1)])


snapdragon()
intel_hybrid()
server()
