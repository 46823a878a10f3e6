#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""abigen adversarial review (audit13), TAP.

usage: abigen_audit.py ABIGEN -- CC...

Each case writes a small header set (one or two versions), runs abigen on
it and either expects a clear error at the want line, or compiles the
generated layer with a small C program that checks the behaviour and runs
it. Constructs a new NVIDIA header drop can bring: negative and unsigned
32-bit table numbers, a field that changes between signed and unsigned
64-bit, a multi-dimensional array whose row length changes, DRF ranges,
member names the neutral struct uses itself.
"""
import os
import subprocess
import sys
import tempfile

from abitest import check, finish

abigen = sys.argv[1]
cc = sys.argv[sys.argv.index('--') + 1:]


def abigen_files(d, files, versions, want):
    """Write @files ({path under @d: text}), the version list @versions and
    the want list @want into @d, run abigen into @d/out; returns the
    completed process and the want-list path."""
    for path, text in files.items():
        os.makedirs(os.path.dirname(os.path.join(d, path)), exist_ok=True)
        with open(os.path.join(d, path), 'w') as f:
            f.write(text)
    vpath = os.path.join(d, 'versions.txt')
    with open(vpath, 'w') as f:
        f.write(versions)
    wpath = os.path.join(d, 'want.txt')
    with open(wpath, 'w') as f:
        f.write(want)
    out = os.path.join(d, 'out')
    os.makedirs(out)
    p = subprocess.run([abigen, '--versions', vpath, '--want', wpath,
                        '--outdir', out], capture_output=True, text=True)
    return p, wpath


def gen(d, headers, want):
    """headers: {version tag: header text}, each version's root header
    h.h in directory TAG; runs abigen, returns the completed process and
    the want-list path."""
    return abigen_files(
        d, {os.path.join(tag, 'h.h'): text for tag, text in headers.items()},
        ''.join('version %s\ninclude %s\nheader h.h\n' % (tag, tag)
                for tag in headers), want)


def run(d, headers, want, test_c):
    """Generate, compile every version file against its headers, link with
    @test_c, run. Returns (ok, detail)."""
    p, _ = gen(d, headers, want)
    if p.returncode:
        return False, 'abigen: ' + p.stderr
    out = os.path.join(d, 'out')
    with open(os.path.join(d, 't.c'), 'w') as f:
        f.write('#include "abi.h"\n' + test_c)
    tags = list(headers)  # identifiers: their version file is abi_<tag>.c
    srcs = [(os.path.join(out, 'abi_%s.c' % t), t) for t in tags]
    srcs += [(os.path.join(out, 'abi_common.c'), tags[0]),
             (os.path.join(d, 't.c'), tags[0])]
    objs, detail = [], ''
    for src, inc in srcs:
        o = src + '.o'
        c = subprocess.run(cc + ['-std=gnu17', '-I' + out,
                                 '-I' + os.path.join(d, inc), '-c', src,
                                 '-o', o], capture_output=True, text=True)
        if c.returncode:
            return False, 'compile %s: %s' % (src, c.stderr[-1500:])
        objs.append(o)
    exe = os.path.join(d, 't')
    c = subprocess.run(cc + objs + ['-o', exe], capture_output=True,
                       text=True)
    if c.returncode:
        return False, 'link: ' + c.stderr[-1500:]
    r = subprocess.run([exe], capture_output=True, text=True)
    return r.returncode == 0, 'exit %d\n%s%s' % (r.returncode, r.stdout,
                                                 r.stderr)


def error_case(name, headers, want, line, words):
    """abigen must fail with exit 1, naming want.txt:LINE and @words."""
    with tempfile.TemporaryDirectory() as d:
        p, w = gen(d, headers, want)
        ok = p.returncode == 1 and '%s:%d:' % (w, line) in p.stderr and \
            all(x in p.stderr for x in words) and \
            not os.listdir(os.path.join(d, 'out'))
        check(name, ok, 'exit %d\n%s' % (p.returncode, p.stderr))


def run_case(name, headers, want, test_c):
    """Generate, compile and run @test_c against the generated layer
    (run()); it must exit 0."""
    with tempfile.TemporaryDirectory() as d:
        ok, detail = run(d, headers, want, test_c)
        check(name, ok, detail)



# 1. A table whose wire numbers include a negative one: from_wire's binary
#    search compares the numbers as uint64_t, so the entries must be sorted
#    that way (they were sorted as int64_t: -1 first, never found).
run_case('table with a negative number: from_wire finds every entry',
         {'a': '#define EV_NEG (-1)\n#define EV_A 0\n'
               '#define EV_B 5\n#define EV_C 7\n'},
         'table ev prefix EV_\n', r"""
int main(void)
{
	uint64_t w;
	uint32_t n;

	if (abi_to_wire(&abi_a, ABI_T_EV, ABI_EV_NEG, &w) || w != (uint64_t)-1)
		return 1;
	if (abi_from_wire(&abi_a, ABI_T_EV, (uint64_t)-1, &n) ||
	    n != ABI_EV_NEG)
		return 2;
	if (abi_from_wire(&abi_a, ABI_T_EV, 5, &n) || n != ABI_EV_B)
		return 3;
	if (abi_from_wire(&abi_a, ABI_T_EV, 7, &n) || n != ABI_EV_C)
		return 4;
	return 0;
}
""")

# 2. An enum table whose enum is unsigned (an enumerator above INT_MAX, as
#    NVIDIA's ..._INVALID = 0xFFFFFFFF): the numbers are the enumerators'
#    values, not sign-extended ones.
run_case('unsigned enum table: values not sign-extended',
         {'a': 'typedef enum { E_ZERO = 0, E_HIGH = '
               '0x80000000, E_ALL = 0xFFFFFFFF } E_T;\n'},
         'table e enum E_T strip E_ fixed\n', r"""
int main(void)
{
	uint64_t w;
	uint32_t n;

	if (abi_to_wire(&abi_a, ABI_T_E, ABI_E_HIGH, &w) || w != 0x80000000u)
		return 1;
	if (abi_to_wire(&abi_a, ABI_T_E, ABI_E_ALL, &w) || w != 0xffffffffu)
		return 2;
	if (abi_from_wire(&abi_a, ABI_T_E, 0xffffffffu, &n) || n != ABI_E_ALL)
		return 3;
	_Static_assert(ABI_K_E_HIGH == 0x80000000u, "K value");
	_Static_assert(ABI_K_E_ALL == 0xffffffffu, "K value");
	return 0;
}
""")

# 3. A field unsigned 64-bit in one version and signed 64-bit in another:
#    no neutral integer holds both ranges (int64_t read a u64 mask above
#    2^63 back negative, silently). A clear error at the field line.
error_case('u64 in one version, s64 in another: error at the field line',
           {'a': 'typedef struct { unsigned long long m; int k; } S;\n',
            'b': 'typedef struct { long long m; int k; } S;\n'},
           'struct S\nfield k\nfield m\n', 3, ["'m'", 'signed'])
error_case('u64 array elements vs s64 ones: error at the field line',
           {'a': 'typedef struct { unsigned long long m[2]; } S;\n',
            'b': 'typedef struct { long long m[2]; } S;\n'},
           'struct S\nfield m\n', 2, ["'m'", 'signed'])

# 4. A two-dimensional array whose row length changes ([2][3] -> [2][4]):
#    the neutral array is flat, so neutral element 3 would be row 1 in one
#    version and row 0 in the other. A clear error, not a silent reshape.
error_case('2-D array whose row length changes: error at the field line',
           {'a': 'typedef struct { unsigned g[2][3]; } S;\n',
            'b': 'typedef struct { unsigned g[2][4]; } S;\n'},
           'struct S\nfield g\n', 2, ["'g'", 'dimension'])
# ... while more rows (the first dimension) is a longer flat array
run_case('2-D array with more rows: a longer flat array',
         {'a': 'typedef struct { unsigned g[2][3]; } S;\n',
          'b': 'typedef struct { unsigned g[3][3]; } S;\n'},
         'struct S\nfield g\n', r"""
int main(void)
{
	unsigned w[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	struct abi_S s;

	if (abi_b_S_unpack(w, sizeof(w), &s) || s.g[8] != 9)
		return 1;
	if (abi_a_S_pack(&s, w, sizeof(w)) != -ERANGE)
		return 2;
	return 0;
}
""")

# ... and a flexible array in one version, a fixed one in another: the
#    error came while abi.h was being written, and left it half-written
error_case('flexible vs fixed array: error, nothing written',
           {'a': 'typedef struct { int n; int x[]; } S;\n',
            'b': 'typedef struct { int n; int x[4]; } S;\n'},
           'struct S\nfield n\nfield x\n', 3, ["'x'", 'incompatible'])

# 5. DRF ranges: a negative low bit is no range (it was stored as 255).
error_case('DRF with a negative low bit: error',
           {'a': '#define NV_X_F 7:-1\n#define NV_OK 3:0\n'},
           'drf NV_X_F\ndrf NV_OK\n', 1, ['NV_X_F', 'DRF'])

# 6. An enum that gains a negative value keeps its spelling and size but
#    turns signed (the neutral type widens): the diff report says so.
with tempfile.TemporaryDirectory() as d:
    p, _ = gen(d, {'a': 'typedef enum { A0 = 0, A1 = 1 } E;\n'
                        'typedef struct { E e; } S;\n',
                   'b': 'typedef enum { BN = -1, A0 = 0, A1 = 1 } E;\n'
                        'typedef struct { E e; } S;\n'},
               'struct S\nfield e\n')
    diff = open(os.path.join(d, 'out', 'abi_diff.txt')).read() \
        if p.returncode == 0 else p.stderr
    check('enum turned signed under the same name: reported',
          'resigned  e (E: unsigned -> signed)' in diff, diff)

# 7. A _Bool member (not a bitfield) holds 0 or 1: packing 2 into it
#    wrote a byte no C bool has; refused like an out-of-range bitfield.
run_case('_Bool member: 2 refused (-ERANGE, nothing written), 1 packed',
         {'a': 'typedef struct { _Bool f; unsigned x; } S;\n'},
         'struct S\nfield f\nfield x\n', r"""
int main(void)
{
	unsigned char w[8];
	struct abi_S s = { .present = ABI_S_HAS_F, .f = 2 };

	memset(w, 0xee, sizeof(w));
	if (abi_a_S_pack(&s, w, sizeof(w)) != -ERANGE || w[0] != 0xee)
		return 1;
	s.f = 1;
	if (abi_a_S_pack(&s, w, sizeof(w)) || w[0] != 1)
		return 2;
	return 0;
}
""")

# 8. A probe define under which the headers do not parse (#error): the
#    define-dependence of every wanted constant is unknown; the report
#    said nothing, and the tool printed 'nothing generated' while it
#    generated everything.
with tempfile.TemporaryDirectory() as d:
    p, _ = abigen_files(d, {'a/h.h': '#if FEAT\n#error not with FEAT\n'
                                     '#endif\n#define K (FEAT ? 5 : 3)\n'},
                        'version a\ninclude a\ndefine FEAT=0\n'
                        'probe FEAT=1\nheader h.h\n', 'const K\n')
    diff = open(os.path.join(d, 'out', 'abi_diff.txt')).read() \
        if p.returncode == 0 else ''
    check('probe under which the headers do not parse: noted per constant',
          'a: K = 3 pinned; headers do not parse with FEAT=1' in diff and
          'nothing generated' not in p.stderr, p.stderr + diff)

# 9. A version tag is written into C strings ("abigen: TAG: ...", .tag):
#    one with a quote generated files that do not compile.
with tempfile.TemporaryDirectory() as d:
    p, _ = abigen_files(d, {'a/h.h': 'typedef struct { int x; } S;\n'},
                        '\nversion 1.0"x\ninclude a\nheader h.h\n',
                        'struct S\nfield x\n')
    check('version tag with a quote: error at its line, nothing written',
          p.returncode == 1 and
          'versions.txt:2: bad version tag' in p.stderr and
          not os.listdir(os.path.join(d, 'out')), p.stderr)

# 10. A wanted field whose neutral name is a member every neutral struct
#    has (`present`): a clear error, not a generated file that does not
#    compile.
error_case("field renamed 'as int': error at the field line",
           {'a': 'typedef struct { int x; int y; } S;\n'},
           'struct S\nfield y\nfield x as int\n', 3, ["'int'", 'keyword'])
error_case("field named 'present': error at the field line",
           {'a': 'typedef struct { int present; int x; } S;\n'},
           'struct S\nfield x\nfield present\n', 3, ["'present'"])

finish(detail_lines=None)
