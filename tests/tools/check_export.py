#!/usr/bin/python3
"""check_export.py - checks what `fusiondbg export` wrote.

  check_export.py clusters OUT.dot MATCH.json   each cluster_<f> holds exactly the
                                                nodes of fusion f of `match --format json`
  check_export.py after OUT.dot MATCH.json      no fusion cluster; one node per fusion,
                                                no fused member drawn on its own
  check_export.py nodes OUT.dot                 prints the op nodes (one id a line)
  check_export.py summary OUT.dot               prints "nodes N edges E clusters C"
  check_export.py png OUT.png                   PNG signature, IHDR sane (1..32767 a side)
  check_export.py svg OUT.svg                   parses as XML, root <svg>, has <g> nodes

A small reader for the DOT that cgraph's agwrite produces (statements,
subgraphs, attribute lists, quoted / HTML strings), not a general DOT parser.
Exit 0 when fine; 1 with one line per difference.
"""
import json
import re
import struct
import sys
import xml.etree.ElementTree as ET


def tokens(text):
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif text.startswith('//', i) or c == '#':
            i = text.find('\n', i)
            i = n if i < 0 else i
        elif text.startswith('/*', i):
            i = text.index('*/', i) + 2
        elif c == '"':
            j, out = i + 1, []
            while text[j] != '"':
                if text[j] == '\\' and text[j + 1] == '\n':    # line continuation
                    j += 2
                    continue
                if text[j] == '\\' and text[j + 1] == '"':
                    out.append('"')
                    j += 2
                    continue
                out.append(text[j])
                j += 1
            yield ('id', ''.join(out))
            i = j + 1
        elif c == '<':
            depth, j = 0, i
            while True:
                if text[j] == '<':
                    depth += 1
                elif text[j] == '>':
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            yield ('id', text[i + 1:j])
            i = j + 1
        elif text.startswith('->', i) or text.startswith('--', i):
            yield ('edgeop', text[i:i + 2])
            i += 2
        elif c in '{}[];,=:':
            yield (c, c)
            i += 1
        else:
            m = re.compile(r'-?[A-Za-z0-9_.\x80-\U0010ffff]+').match(text, i)
            if not m:
                raise SyntaxError('unexpected %r at %d' % (c, i))
            yield ('id', m.group(0))
            i = m.end()


class Graph:
    def __init__(self, name):
        self.name = name
        self.nodes = []        # ids, first mention order
        self.attrs = {}        # node id -> attrs
        self.edges = []        # (tail, head, attrs)
        self.subgraphs = []
        self.gattrs = {}


def parse(text):
    toks = list(tokens(text))
    pos = [0]

    def peek(k=0):
        return toks[pos[0] + k] if pos[0] + k < len(toks) else (None, None)

    def take(kind=None):
        t = toks[pos[0]]
        if kind and t[0] != kind:
            raise SyntaxError('expected %s, got %r' % (kind, t))
        pos[0] += 1
        return t[1]

    def attr_list():
        attrs = {}
        while peek()[0] == '[':
            take('[')
            while peek()[0] != ']':
                k = take('id')
                take('=')
                attrs[k] = take('id')
                if peek()[0] in (',', ';'):
                    take()
            take(']')
        return attrs

    def mention(g, stack, nid):
        for sg in stack:
            if nid not in sg.attrs:
                sg.attrs[nid] = {}
                sg.nodes.append(nid)

    def body(g, stack):
        take('{')
        while peek()[0] != '}':
            kind, val = peek()
            if kind == ';':
                take()
                continue
            if kind == 'id' and val in ('graph', 'node', 'edge') and peek(1)[0] == '[':
                take()
                a = attr_list()
                if val == 'graph':
                    g.gattrs.update(a)
                continue
            if kind == 'id' and val == 'subgraph':
                take()
                sg = Graph(take('id') if peek()[0] == 'id' else '')
                g.subgraphs.append(sg)
                body(sg, stack + [sg])
                continue
            if kind == '{':
                sg = Graph('')
                g.subgraphs.append(sg)
                body(sg, stack + [sg])
                continue
            if kind == 'id' and peek(1)[0] == '=':
                k = take()
                take('=')
                g.gattrs[k] = take('id')
                continue
            chain = [take('id')]
            while peek()[0] == 'edgeop':
                take()
                chain.append(take('id'))
            a = attr_list()
            for nid in chain:
                mention(g, stack, nid)
            if len(chain) == 1:
                for sg in stack:
                    sg.attrs[chain[0]].update(a)
            for t, h in zip(chain, chain[1:]):
                stack[0].edges.append((t, h, a))
        take('}')

    while peek()[0] == 'id' and peek()[1] in ('strict', 'digraph', 'graph'):
        take()
    root = Graph(take('id') if peek()[0] == 'id' else '')
    body(root, [root])
    return root


def all_subgraphs(g):
    for sg in g.subgraphs:
        yield sg
        yield from all_subgraphs(sg)


def fusion_clusters(root):
    out = {}
    for sg in all_subgraphs(root):
        m = re.fullmatch(r'cluster_(\d+)', sg.name)
        if m:
            out[int(m.group(1))] = sg
    return out


def op_ids(root):
    """Op nodes: everything but the legend, graph inputs / outputs and the
    stubs of edges cut at a part's border."""
    return [n for n in root.nodes
            if n != 'legend' and not re.match(r'^(g\d+/)?(input|output|stub:in|stub:out):', n)]


def node_name(nid, graph):
    prefix = '' if graph == 0 else 'g%d/' % graph
    if not nid.startswith(prefix):
        return None
    return re.sub(r'#\d+$', '', nid[len(prefix):])


def check_clusters(dot_path, json_path):
    root = parse(open(dot_path, encoding='utf-8').read())
    fusions = json.load(open(json_path, encoding='utf-8'))['fusions']
    clusters = fusion_clusters(root)
    errors = []
    if sorted(clusters) != list(range(len(fusions))):
        errors.append('%s: clusters %s, but match has %d fusions' %
                      (dot_path, sorted(clusters), len(fusions)))
    for f, fu in enumerate(fusions):
        sg = clusters.get(f)
        if sg is None:
            continue
        got = sorted(node_name(n, fu.get('graph', 0)) or '?' + n for n in sg.nodes)
        want = sorted(fu['nodes'])
        if got != want:
            errors.append('%s: cluster_%d holds %s, fusion %d (%s) has %s' %
                          (dot_path, f, got, f, fu['rule'], want))
        label = sg.gattrs.get('label', '')
        if not label.startswith(fu['rule'] + ' · %d ops → ' % len(fu['nodes'])):
            errors.append('%s: cluster_%d label %r does not start with the rule and op count' %
                          (dot_path, f, label))
        if '(est.)' not in label:
            errors.append('%s: cluster_%d label %r has no speed-up estimate' % (dot_path, f, label))
    return errors


def check_after(dot_path, json_path):
    root = parse(open(dot_path, encoding='utf-8').read())
    fusions = json.load(open(json_path, encoding='utf-8'))['fusions']
    errors = []
    if fusion_clusters(root):
        errors.append('%s: the after view has fusion clusters' % dot_path)
    ids = set(root.nodes)
    seq = {}
    for fu in fusions:
        seq[fu['rule']] = seq.get(fu['rule'], 0) + 1
        prefix = '' if fu.get('graph', 0) == 0 else 'g%d/' % fu['graph']
        want = '%s%s_%d' % (prefix, fu['rule'], seq[fu['rule']])
        if want not in ids:
            errors.append('%s: no collapsed node %s' % (dot_path, want))
        for n in fu['nodes']:
            if prefix + n in ids:
                errors.append('%s: fused node %s drawn on its own' % (dot_path, n))
    return errors


def check_png(path):
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        return ['%s: no PNG signature' % path]
    if data[12:16] != b'IHDR':
        return ['%s: first chunk is not IHDR' % path]
    w, h = struct.unpack('>II', data[16:24])
    if not (1 <= w <= 32767 and 1 <= h <= 32767):
        return ['%s: IHDR size %dx%d is not sane' % (path, w, h)]
    if data[-8:-4] != b'IEND':
        return ['%s: does not end with IEND (cut short?)' % path]
    print('%s: %dx%d' % (path, w, h))
    return []


def check_svg(path):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        return ['%s: not XML: %s' % (path, e)]
    if not root.tag.endswith('svg'):
        return ['%s: root element is %s, not svg' % (path, root.tag)]
    ns = '{http://www.w3.org/2000/svg}'
    nodes = [g for g in root.iter(ns + 'g') if g.get('class') == 'node']
    if not nodes:
        return ['%s: no node drawn' % path]
    print('%s: %d nodes' % (path, len(nodes)))
    return []


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    mode = argv[1]
    if mode == 'clusters':
        errors = check_clusters(argv[2], argv[3])
    elif mode == 'after':
        errors = check_after(argv[2], argv[3])
    elif mode == 'png':
        errors = check_png(argv[2])
    elif mode == 'svg':
        errors = check_svg(argv[2])
    elif mode == 'nodes':
        for n in op_ids(parse(open(argv[2], encoding='utf-8').read())):
            print(n)
        return 0
    elif mode == 'summary':
        root = parse(open(argv[2], encoding='utf-8').read())
        print('nodes %d edges %d clusters %d' % (len(op_ids(root)), len(root.edges),
                                                 len(fusion_clusters(root))))
        return 0
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
