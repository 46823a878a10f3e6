// SPDX-License-Identifier: MIT
/*
 * nvl's help table and its three renderings: --help text, the nvl(1) man
 * page (roff) and the bash completion script. See help.h.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

#include "help.h"
#include "term.h"

static const struct nvl_help_opt nvl_opts[] = {
	{"-h, --help", NULL, "show this help and exit"},
	{"-V, --version", NULL, "print nvl's version and build type"},
	{0},
};
static const struct nvl_help_example nvl_ex[] = {
	{"nvl", "run the main job (nvl demo) on the built-in GPU model"},
	{"nvl plot run.jsonl -o run.png", "draw a recorded time series"},
	{"nvl fw --help", "a command's own help"},
	{0},
};

static const struct nvl_help_opt demo_opts[] = {
	{"--firmware", "VERSION",
	 "boot the GSP with this firmware version (535.54.03, 535.113.01 "
	 "or 570.144; "
	 "default: 535.113.01, what the driver boots on these chips)"},
	{"-h, --help", NULL, "show this help and exit"},
	{0},
};
static const struct nvl_help_example demo_ex[] = {
	{"nvl demo", "run every step; exit 1 at the first that fails"},
	{"nvl demo --firmware 570.144", "boot the GSP on 570.144's ABI"},
	{"NVL_DEBUG=err nvl demo", "also log why a failing call failed"},
	{0},
};

static const struct nvl_help_opt bench_opts[] = {
	{"--json", NULL,
	 "one JSON object per line (with the baseline "
	 "measured in the same run; with --list, one per benchmark)"},
	{"--quick", NULL, "short runs (a smoke test, not a measurement)"},
	{"--list", NULL, "list suites and benchmarks"},
	{"-h, --help", NULL, "show this help and exit"},
	{0},
};
static const struct nvl_help_example bench_ex[] = {
	{"nvl bench --list", "what can be run"},
	{"nvl bench --json sync", "the sync suite as JSON lines"},
	{"nvl bench 'itree_*'", "benchmarks by shell glob"},
	{0},
};

static const struct nvl_help_opt fw_opts[] = {
	{"--path", "DIRS",
	 "colon-separated search path (default: "
	 "$NVL_FIRMWARE_PATH, then the build's images)"},
	{"--chip", "C",
	 "a chip (tu102, ga104, ad107, gh100, ...); repeat "
	 "for several"},
	{"--versions", "V,...",
	 "versions the chips accept (default: those the driver boots on "
	 "the chip's architecture without NVL_FW_VERSION)"},
	{"--fallbacks", NULL, "needed: also carry older accepted versions"},
	{"-h, --help", NULL, "show this help and exit"},
	{0},
};
static const struct nvl_help_example fw_ex[] = {
	{"nvl fw list", "firmware on the search path and what each chip boots"},
	{"nvl fw info /lib/firmware/nvidia/ga102/gsp/gsp-535.113.01.bin.zst",
	 "sections, version, signatures, sizes"},
	{"nvl fw verify build/firmware/nvidia/ad102/gsp/gsp-570.144.bin",
	 "structure and signatures; exit 1 if bad"},
	{"nvl fw needed --chip ga104 --chip ad107 --path /lib/firmware",
	 "the minimal files an initramfs must carry"},
	{0},
};

static const struct nvl_help_opt asm_opts[] = {
	{"--arch", "smNN", "target architecture (default sm80)"},
	{"--base", "ADDR", "address of the first instruction"},
	{"-o, --output", "FILE",
	 "write the little-endian binary to FILE "
	 "instead of hex words on stdout"},
	{"-h, --help", NULL, "show this help and exit"},
	{0},
};
static const struct nvl_help_example asm_ex[] = {
	{"echo 'EXIT ;' | nvl asm", "one instruction as two hex u64 words"},
	{"nvl asm --arch sm90 -o k.bin k.sass", "assemble a file to binary"},
	{0},
};

static const struct nvl_help_opt dis_opts[] = {
	{"--arch", "smNN", "architecture of the words (default sm80)"},
	{"--base", "ADDR", "address of the first instruction"},
	{"--hex", NULL, "input is \"lo hi\" hex lines, not binary"},
	{"--no-ctrl", NULL, "leave out the control (scheduling) fields"},
	{"-h, --help", NULL, "show this help and exit"},
	{0},
};
static const struct nvl_help_example dis_ex[] = {
	{"nvl dis k.bin", "disassemble a binary"},
	{"echo 'EXIT ;' | nvl asm | nvl dis --hex", "a round trip"},
	{0},
};

static const struct nvl_help_opt plot_opts[] = {
	{"-o, --output", "OUT", "the image to write (required); .png or .svg"},
	{"-f, --format", "png|svg",
	 "the image format, when OUT's extension "
	 "does not say"},
	{"-s, --series", "GLOBS",
	 "comma-separated globs of series keys to draw (gpu0.temp, "
	 "gpu0.busy.*, client3.*); a glob without a dot also matches any one "
	 "part of a key (temp, power*, busy, vram)"},
	{"--size", "WxH",
	 "image size in pixels, each side 1 to 20000 (default 1000 "
	 "wide, 200 high per panel)"},
	{"--title", "TEXT", "title above the panels (default: FILE)"},
	{"-l, --list", NULL,
	 "list the file's series (key, unit, samples) "
	 "and draw nothing"},
	{"-v, --verbose", NULL,
	 "report each panel and series drawn and a "
	 "summary line on stdout"},
	{"-h, --help", NULL, "show this help and exit"},
	{0},
};
static const struct nvl_help_example plot_ex[] = {
	{"nvl plot run.jsonl -o run.png",
	 "every panel: temperature, power and its limit, clocks, "
	 "utilisation per engine and per client, client memory"},
	{"nvl plot run.jsonl -o run.svg --series 'temp,power*'",
	 "temperature and power only, as SVG"},
	{"nvl plot run.jsonl -o - --format png > run.png", "to stdout"},
	{"nvl plot run.jsonl -o busy.png --series busy --size 1200x500",
	 "utilisation per engine and per client only"},
	{"nvl plot --list run.jsonl", "what the file holds"},
	{0},
};

static const struct nvl_help_opt run_opts[] = {
	{"-d, --device", "SPEC",
	 "the device: model:CHIP (tiny, tu102, ga102, ad102, gh100) or "
	 "model (default: the embedded default)"},
	{"--chip", "CHIP", "the same as -d model:CHIP"},
	{"-s, --seconds", "S",
	 "how long to run (default 2; a workload always finishes its first "
	 "round)"},
	{"-c, --clients", "N",
	 "clients, each on its own thread (default: sparse 1, oversub 1, "
	 "multiclient 4, fault 2, thermal 1, hang 2, suspend 1 and only "
	 "1)"},
	{"--channels", "N", "copy channels per client (default 2)"},
	{"--vram", "MIB",
	 "the model's VRAM in MiB, 256 or more (default: oversub 256, the "
	 "others the chip's)"},
	{"--json", NULL, "the summary as one JSON object on stdout"},
	{"--no-rebind", NULL,
	 "oversub: accepted for old scripts; oversub never rebinds (EXEC "
	 "revalidates a VM's moved BOs)"},
	{"--power-limit", "W",
	 "set the board power limit first (the device is opened with the "
	 "right to change its state); thermal: default 40 % of the board's "
	 "default limit"},
	{"-r, --record", "FILE",
	 "write a time series of sensors and per-client memory to FILE "
	 "(JSON lines, drawn by nvl plot)"},
	{"-l, --list", NULL, "list the workloads and exit"},
	{"-h, --help", NULL, "show this help and exit"},
	{0},
};
static const struct nvl_help_example run_ex[] = {
	{"nvl run sparse", "stream a sparse texture for 2 s; summary"},
	{"nvl run oversub --seconds 5 --json",
	 "4x VRAM oversubscription, JSON summary"},
	{"nvl run multiclient --clients 8 --channels 4 --chip gh100",
	 "8 clients x 4 channels on the Hopper model"},
	{"nvl run fault", "one client faults; the other's work completes"},
	{"nvl run hang --json",
	 "an engine hang: the hung job -ETIMEDOUT after the job timeout, "
	 "the one behind it resubmitted, the others unharmed"},
	{"nvl run thermal -s 10 -r load.jsonl && nvl plot load.jsonl -o "
	 "load.png",
	 "record a sustained load and draw it"},
	{0},
};

static const struct nvl_help_opt smi_opts[] = {
	{"-L, --list-gpus", NULL, "one line per GPU: index, name, UUID"},
	{"-q, --query", NULL, "the full report (sections)"},
	{"-x, --xml-format", NULL,
	 "the full report as XML (nvidia_smi_log, nvidia-smi's element "
	 "names); not with -d"},
	{"-d, --display", "LIST",
	 "with -q, only these sections: MEMORY, UTILIZATION, TEMPERATURE, "
	 "POWER, CLOCK, PERFORMANCE, COMPUTE, PIDS, ECC (comma-separated)"},
	{"-i, --id", "IDS",
	 "only these GPUs: indices or PCI bus ids, comma-separated"},
	{"--query-gpu", "FIELDS",
	 "one CSV row per GPU with these fields (nvidia-smi's names; see "
	 "--help-query-gpu)"},
	{"--query-compute-apps", "FIELDS",
	 "one CSV row per client: timestamp, gpu_name, gpu_bus_id, "
	 "gpu_serial, gpu_uuid, pid, process_name, used_gpu_memory"},
	{"--format", "csv[,noheader][,nounits]",
	 "required with --query-*: CSV, without the header line, without "
	 "units in the values"},
	{"--help-query-gpu", NULL, "list the --query-gpu fields"},
	{"--json", NULL,
	 "one JSON object per report: every field (or the --query-gpu "
	 "ones) as a number, string or null, and the processes"},
	{"-l, --loop", "[SEC]",
	 "repeat every SEC seconds (default 5) until Ctrl+C"},
	{"-lms, --loop-ms", "MS", "repeat every MS milliseconds"},
	{"-c, --count", "N", "with a loop: stop after N reports (nouvelle's)"},
	{"--devices", "SPECS",
	 "the devices to open, comma-separated (default $NVL_DEVICES, then "
	 "model); the model runs in the process, so nvl smi opens them"},
	{"--run", "WORKLOAD",
	 "run a built-in load on GPU 0 while reporting: copy[:N] (N "
	 "clients copying), busy[:PCT] (one client busy PCT % of the time)"},
	{"-h, --help", NULL, "show this help and exit"},
	{0},
};
static const struct nvl_help_example smi_ex[] = {
	{"nvl smi", "the summary table"},
	{"nvl smi --devices model:ad102,model:gh100 -L", "list two GPUs"},
	{"nvl smi --query-gpu=name,temperature.gpu,power.draw "
	 "--format=csv,nounits",
	 "CSV for scripts"},
	{"nvl smi -q -d POWER,CLOCK", "two sections of the report"},
	{"nvl smi -q -x", "the report as XML, for scripts"},
	{"nvl smi --run copy:2 --query-compute-apps=pid,name,used_memory "
	 "--format=csv",
	 "the clients of a running load"},
	{0},
};

static const struct nvl_help_opt top_opts[] = {
	{"-d, --delay", "SEC",
	 "seconds between samples (default 1; 0.1 .. 100)"},
	{"-n, --iterations", "N",
	 "stop after N samples (default: until q or Ctrl+C)"},
	{"-J, --json", NULL,
	 "one JSON object per sample and line (engines, clocks, power, "
	 "temperature, memory, clients)"},
	{"-s, --sort", "KEY",
	 "sort clients by busy (default), vram, id or name"},
	{"--devices", "SPECS",
	 "the devices to open (default $NVL_DEVICES, then model)"},
	{"--run", "WORKLOAD",
	 "run a built-in load on GPU 0 and watch it: copy[:N], busy[:PCT]"},
	{"-h, --help", NULL, "show this help and exit"},
	{0},
};
static const struct nvl_help_example top_ex[] = {
	{"nvl top --run copy:3", "watch three copying clients"},
	{"nvl top -J -n 5 --run busy:40",
	 "five JSON lines; the client is 40 % busy"},
	{"nvl top -d 0.5 | cat", "plain text lines every half second"},
	{0},
};

static const struct nvl_help_opt trace_opts[] = {
	{"-d, --device", "SPEC",
	 "the device to trace (model:tu102, model:gh100, ...; default: the "
	 "embedded model)"},
	{"--firmware", "VERSION", "boot this GSP firmware version"},
	{"-c, --clients", "N", "clients of the workload, 1..8 (default 2)"},
	{"-j, --jobs", "N", "exec jobs per client (default 2)"},
	{"-r, --record", "FILE",
	 "also write the capture to FILE (- for stdout, which then holds only "
	 "the capture)"},
	{"--read", "FILE",
	 "decode a capture written with --record; run nothing"},
	{"--client", "N", "pushbuffers of workload client N only"},
	{"--channel", "HANDLE", "pushbuffers of that channel handle only"},
	{"--rpc", "NAMES",
	 "GSP messages whose name contains one of the comma-separated NAMES "
	 "(GSP_RM_ALLOC,FREE)"},
	{"-g, --gsp", NULL, "GSP traffic only"},
	{"-p, --push", NULL, "pushbuffers only"},
	{"--raw", NULL, "also print each data dword in hex"},
	{"-q, --quiet", NULL, "print the summary line only"},
	{"-h, --help", NULL, "show this help and exit"},
	{0},
};
static const struct nvl_help_example trace_ex[] = {
	{"nvl trace", "boot, run the copy jobs, decode everything"},
	{"nvl trace --gsp --rpc GSP_RM_ALLOC,FREE",
	 "the RM objects allocated and freed, with their fields"},
	{"nvl trace --push --client 1",
	 "client 1's pushbuffers, method by method"},
	{"nvl trace -d model:gh100 --record boot.nvltrace -q",
	 "capture a Hopper run to a file"},
	{"nvl trace --read boot.nvltrace --gsp", "decode a capture's GSP side"},
	{0},
};

static const struct nvl_help_opt help_opts[] = {
	{"--man", NULL, "write the nvl(1) man page (roff) to stdout"},
	{"--bash-completion", NULL,
	 "write the bash completion script to "
	 "stdout"},
	{"-h, --help", NULL, "show this help and exit"},
	{0},
};
static const struct nvl_help_example help_ex[] = {
	{"nvl help plot", "the same as nvl plot --help"},
	{"nvl help --man | man -l -", "read the manual"},
	{"source <(nvl help --bash-completion)", "complete nvl in this shell"},
	{0},
};

static const struct nvl_help table[] = {
	{"nvl", "the nouvelle command-line tool",
	 "nvl [--version] [--help] [COMMAND [ARGS]]",
	 "nvl runs nouvelle, a GPU driver core for GSP-era NVIDIA GPUs, on "
	 "its built-in model of the GPU, and looks at what it does. Without "
	 "a command it runs demo.\n\n"
	 "Every command writes data to stdout and errors to stderr (with the "
	 "library's nvl_last_error() text), uses colour only on a terminal "
	 "and never when NO_COLOR is set, and exits 0 on success, 1 on "
	 "failure and 2 on a usage error.",
	 nvl_opts, nvl_ex, NULL},
	{"demo", "the main job: exercise the stack on the built-in model",
	 "nvl demo [--firmware VERSION]",
	 "Runs every registered step (machine baselines, GSP boot, sync, "
	 "scheduler, mm, vm, model, MMU, driver) in order, each labelled with "
	 "what it runs on, and stops at the first failure. The driver step "
	 "runs nvl run's sparse, copy and oversubscription workloads as one "
	 "story on one device.",
	 demo_opts, demo_ex, NULL},
	{"bench", "run benchmarks (--json for JSON lines)",
	 "nvl bench [--json] [--quick] [--list] [NAME...]",
	 "Runs benchmarks by suite (baseline, base, sync, sched, mm, vm, "
	 "mmu, model, gsp, exec, rc, split, compute, abigen) or name; shell "
	 "globs work. Each result is reported with a physical baseline "
	 "measured in the same run.",
	 bench_opts, bench_ex, NULL},
	{"fw", "GSP firmware: list, info, verify, needed",
	 "nvl fw list [--path DIRS] [--chip C]... [--versions V,...]\n"
	 "nvl fw info FILE\n"
	 "nvl fw verify FILE\n"
	 "nvl fw needed [--chip C]... [--path DIRS] [--versions V,...] "
	 "[--fallbacks]",
	 "GSP firmware in linux-firmware's layout: "
	 "DIR/nvidia/CHIP/gsp/NAME-VERSION.bin, optionally .zst or .xz "
	 "compressed, where NAME is gsp, booter_load, booter_unload or "
	 "bootloader.\n\n"
	 "list shows the firmware found on the search path (chips, versions, "
	 "compression, links) and the version each chip would boot. info "
	 "shows a file's structure: ELF sections, version, signature "
	 "families, sizes, booter and bootloader header fields. verify checks "
	 "a file's structure and, for nouvelle's own images, the manifest "
	 "hash and every signature. needed lists the minimal files an "
	 "initramfs must carry for the chips, identical blobs counted once.",
	 fw_opts, fw_ex, "list info verify needed"},
	{"asm", "assemble SASS text into 128-bit words",
	 "nvl asm [--arch smNN] [--base ADDR] [-o FILE] [FILE|-]",
	 "Assembles SASS text through the ISA table. Without -o it prints "
	 "one instruction per line as two hex u64 words, \"lo hi\".",
	 asm_opts, asm_ex, NULL},
	{"dis", "disassemble 128-bit SASS words",
	 "nvl dis [--arch smNN] [--base ADDR] [--hex] [--no-ctrl] [FILE|-]",
	 "Disassembles a little-endian binary of 128-bit instructions (or, "
	 "with --hex, \"lo hi\" lines as nvl asm prints them).",
	 dis_opts, dis_ex, NULL},
	{"plot", "draw a recorded time series as PNG or SVG",
	 "nvl plot [OPTIONS] FILE -o OUT\n"
	 "nvl plot --list FILE",
	 "Draws a time series recorded by nvl run --record (JSON lines, "
	 "see docs/tools.md) with cairo: one panel each for temperature, "
	 "power against its limit (dashed), graphics and memory clocks, "
	 "utilisation per engine, utilisation per client and client memory "
	 "(VRAM and GTT), over time in seconds, with units, ticks and a "
	 "legend. Panels without a selected series are left out; missing "
	 "values (null) leave gaps.\n\n"
	 "A malformed FILE is an error naming its line (exit 1); bad options "
	 "exit 2.",
	 plot_opts, plot_ex, NULL},
	{"run", "run a workload on a device: sparse, oversub, fault, ...",
	 "nvl run [OPTIONS] WORKLOAD\n"
	 "nvl run --list",
	 "Opens a device and runs one workload on it through the public API "
	 "for --seconds, checking every byte it writes, then prints a "
	 "summary (or --json). WORKLOAD is sparse (a sparse texture streamed "
	 "tile by tile with asynchronous VM_BIND while the copies run), "
	 "oversub (BOs of 4x the VRAM, evicted and brought back), "
	 "multiclient (clients x channels submitting and binding at once), "
	 "fault (one client faults on an unmapped VA: its channel is killed, "
	 "the other clients' work completes), thermal (a sustained copy "
	 "load against a lowered power limit), hang (an engine hang: the "
	 "hung job times out, the one behind it is resubmitted, the other "
	 "clients go on) or suspend (suspend-to-RAM and resume cycles, every "
	 "byte checked after each).\n\n"
	 "A progress bar is drawn on stderr when it is a terminal and the "
	 "run is longer than a second. Exit 0 when the workload passed its "
	 "checks, 1 when it failed (the summary says why), 2 on bad usage.",
	 run_opts, run_ex,
	 "sparse oversub multiclient fault thermal hang suspend"},
	{"smi", "nvidia-smi's interface: table, -q, -L, CSV queries",
	 "nvl smi [-i IDS] [-L | -q [-d LIST] | -q -x | --query-gpu=FIELDS | "
	 "--query-compute-apps=FIELDS] [--format=csv[,noheader][,nounits]] "
	 "[--json] [-l [SEC] | -lms MS] [--devices SPECS] [--run WORKLOAD]",
	 "Reports the GPUs as nvidia-smi does: the summary table (versions "
	 "of nouvelle and the GSP firmware; per GPU its name, bus id, fan, "
	 "temperature, P-state, power draw and limit, memory and "
	 "utilisation; then the clients as processes, with their VRAM), "
	 "the list (-L), the report (-q), and CSV rows with nvidia-smi's "
	 "field names, header texts and units (--query-gpu, "
	 "--help-query-gpu). Values the device does not report print "
	 "[N/A] (or [Not Supported]), never a number.\n\n"
	 "The model lives in the process, so nvl smi opens its devices "
	 "itself: --devices or $NVL_DEVICES (\"model:ad102,model:gh100\"), "
	 "indexed in that order; a model's PCI bus is 1, 2, ... in open "
	 "order.\n\n"
	 "As nvidia-smi: an unknown field prints 'Field \"x\" is not a "
	 "valid field to query.' on stdout and exits 2; a bad option "
	 "exits 2 ('Invalid combination of input arguments'); -i naming no "
	 "GPU prints 'No devices were found' and exits 6.",
	 smi_opts, smi_ex, NULL},
	{"top", "live view of engines, clocks, power and clients",
	 "nvl top [-d SEC] [-n N] [-J] [-s KEY] [--devices SPECS] "
	 "[--run WORKLOAD]",
	 "A live view like nvtop and gputop: per GPU the copy engines' busy "
	 "%, clocks, power against its limit, temperature and memory, with "
	 "history graphs; below, one row per client from its DRM fdinfo "
	 "(busy % from two samples of drm-engine-copy: 100 x delta ns / "
	 "delta t, the share of one engine as in nvtop; VRAM and GTT "
	 "resident).\n\n"
	 "Keys: h help, s next sort key, r reverse, p pause, q or Esc "
	 "quit. On a terminal it draws with ncurses; when stdout is not a "
	 "terminal it prints plain text lines, and with -J one JSON object "
	 "per sample and line (null where a value is unknown, as for a "
	 "client's first sample).",
	 top_opts, top_ex, NULL},
	{"trace", "decode GSP RPCs and pushbuffers of a traced run or capture",
	 "nvl trace [OPTIONS]\n"
	 "nvl trace --read FILE [FILTERS]",
	 "Decodes what crosses the device's wires, like envytools' demmt: "
	 "opens the device with a wire tracer, boots it through the GSP, runs "
	 "a built-in workload (each client copies and fills a buffer with "
	 "copy-engine jobs built with nouvelle/push.h, then releases and "
	 "acquires semaphores; every byte is checked), closes the device, and "
	 "prints every record in order.\n\n"
	 "GSP lines: '>' for an RPC sent, '<' for a reply or event read, with "
	 "the function or event name, the sequence number, the status of a "
	 "reply, and the fields of the RPC's struct printed by the "
	 "pretty-printers abigen generated for the running firmware version. "
	 "Push lines: the channel (and the workload's client and channel "
	 "handle), the GPU VA and the dwords the PBDMA processed; then each "
	 "method header (INC, NINC, 1INC, IMMD) and each method call as "
	 "subchannel:CLASS.METHOD = data with its fields by name, from the "
	 "driver's class method table.\n\n"
	 "The last line counts GSP messages, methods and how many of each had "
	 "no name. A malformed capture is an error (exit 1); bad options exit "
	 "2.",
	 trace_opts, trace_ex, NULL},
	{"help", "help on a command; the man page; bash completion",
	 "nvl help [COMMAND]\n"
	 "nvl help --man\n"
	 "nvl help --bash-completion",
	 "Prints a command's help, or renders the whole help table as the "
	 "nvl(1) man page or as a bash completion script. The build makes "
	 "both (tools/nvl/nvl.1, tools/nvl/completion/nvl) with this command.",
	 help_opts, help_ex, NULL},
};

#define NTABLE (sizeof(table) / sizeof(table[0]))

const struct nvl_help *nvl_help_find(const char *name)
{
	for (size_t i = 0; i < NTABLE; i++)
		if (!strcmp(table[i].name, name))
			return &table[i];
	return NULL;
}

/*
 * Words of @s, wrapped at @width, each line starting with @indent spaces;
 * '\n' in @s breaks a line, "\n\n" a paragraph. @col0 > 0: the cursor is
 * already at that column on the first line (after an option's flags).
 */
static void wrap(FILE *f, const char *s, int indent, int width, int col0)
{
	int col = col0;
	bool fresh = true;

	while (*s) {
		size_t n = strcspn(s, " \n");

		if (!fresh && col + 1 + (int)n > width) {
			fputc('\n', f);
			col = 0;
		}
		if (!col) {
			fprintf(f, "%*s", indent, "");
			col = indent;
		} else if (!fresh) {
			fputc(' ', f);
			col++;
		}
		fwrite(s, 1, n, f);
		fresh = false;
		col += (int)n;
		s += n;
		while (*s == ' ')
			s++;
		if (*s == '\n') {
			fputc('\n', f);
			col = 0;
			fresh = true;
			s++;
			if (*s == '\n') {
				fputc('\n', f);
				s++;
			}
		}
	}
	if (col)
		fputc('\n', f);
}

int nvl_help_print(FILE *f, const char *name)
{
	const struct nvl_help *h = nvl_help_find(name);
	const char *b = nvl_term_sgr(f, NVL_SGR_BOLD);
	const char *r = nvl_term_sgr(f, NVL_SGR_RESET);
	const char *s;

	if (!h)
		return 1;
	fprintf(f, "%sUsage:%s\n", b, r);
	for (s = h->synopsis; *s;) {
		size_t n = strcspn(s, "\n");

		fprintf(f, "  %.*s\n", (int)n, s);
		s += n + (s[n] == '\n');
	}
	fprintf(f, "\n%s\n\n", h->summary);
	wrap(f, h->description, 2, 78, 0);
	if (!strcmp(h->name, "nvl")) {
		fprintf(f, "\n%sCommands:%s\n", b, r);
		for (size_t i = 1; i < NTABLE; i++)
			fprintf(f, "  %-8s %s\n", table[i].name,
				table[i].summary);
	}
	fprintf(f, "\n%sOptions:%s\n", b, r);
	for (const struct nvl_help_opt *o = h->opts; o->flags; o++) {
		char left[64];

		snprintf(left, sizeof(left), "%s%s%s", o->flags,
			 o->arg ? " " : "", o->arg ? o->arg : "");
		if (strlen(left) > 22) {
			fprintf(f, "  %s\n", left);
			wrap(f, o->text, 26, 78, 0);
		} else {
			fprintf(f, "  %-22s  ", left);
			wrap(f, o->text, 26, 78, 26);
		}
	}
	fprintf(f, "\n%sExamples:%s\n", b, r);
	for (const struct nvl_help_example *e = h->examples; e->cmd; e++) {
		fprintf(f, "  %s\n", e->cmd);
		wrap(f, e->text, 6, 78, 0);
	}
	return 0;
}

int nvl_usage_error(const char *name, const char *fmt, ...)
{
	const struct nvl_help *h = nvl_help_find(name);
	bool top = !strcmp(name, "nvl");
	va_list ap;

	nvl_tool_prefix(name, "usage error");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (h) {
		size_t n = strcspn(h->synopsis, "\n");

		fprintf(stderr, "usage: %.*s\n", (int)n, h->synopsis);
	}
	fprintf(stderr, "Try 'nvl%s%s --help'.\n", top ? "" : " ",
		top ? "" : name);
	return NVL_EXIT_USAGE;
}

int nvl_help_usage_error(const char *name, const char *why)
{
	return nvl_usage_error(name, "%s", why);
}

int nvl_usage_getopt(const char *name, int ch, char **argv)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	int n = (int)strcspn(arg, "=");

	/* a long option by its name (without "=VALUE"), a short one by its
	 * letter (it may sit in a cluster: -vz) */
	if (ch == ':')
		return arg[0] == '-' && arg[1] == '-'
			       ? nvl_usage_error(name,
						 "option '%.*s' needs a value",
						 n, arg)
			       : nvl_usage_error(name,
						 "option '-%c' needs a value",
						 optopt);
	if (arg[0] == '-' && arg[1] == '-')
		return nvl_usage_error(name, "unknown option '%s'", arg);
	if (optopt > ' ' && optopt < 0x7f)
		return nvl_usage_error(name, "unknown option '-%c'", optopt);
	return nvl_usage_error(name, "unknown option");
}

/* ---- nvl(1) ------------------------------------------------------------ */

/* Text for roff: backslashes escaped, '-' as \-, no line starting with a
 * control character. */
static void roff(FILE *f, const char *s, size_t n, bool line_start)
{
	for (size_t i = 0; i < n && s[i]; i++) {
		char c = s[i];

		if (line_start && (c == '.' || c == '\''))
			fputs("\\&", f);
		line_start = false;
		if (c == '\\')
			fputs("\\e", f);
		else if (c == '-')
			fputs("\\-", f);
		else
			fputc(c, f);
		if (c == '\n')
			line_start = true;
	}
}

static void roff_s(FILE *f, const char *s)
{
	roff(f, s, strlen(s), true);
}

/* Paragraphs ("\n\n") become .PP; single '\n' become .br. */
static void roff_text(FILE *f, const char *s)
{
	while (*s) {
		const char *br = strchr(s, '\n');
		size_t n = br ? (size_t)(br - s) : strlen(s);

		roff(f, s, n, true);
		fputc('\n', f);
		s += n;
		if (!*s)
			break;
		if (s[1] == '\n') {
			fputs(".PP\n", f);
			s += 2;
		} else {
			fputs(".br\n", f);
			s++;
		}
	}
}

static void man_command(FILE *f, const struct nvl_help *h, bool top)
{
	const char *s;

	if (!top) {
		fputs(".SS ", f);
		roff_s(f, h->name);
		fputs("\n", f);
		roff_s(f, h->summary);
		fputs(".\n.PP\n", f);
	}
	if (top)
		fputs(".SH SYNOPSIS\n", f);
	for (s = h->synopsis; *s;) {
		size_t n = strcspn(s, "\n");

		fputs(".B ", f);
		roff(f, s, n, false);
		fputs("\n.br\n", f);
		s += n + (s[n] == '\n');
	}
	if (top)
		fputs(".SH DESCRIPTION\n", f);
	else
		fputs(".PP\n", f);
	roff_text(f, h->description);
	if (!top)
		fputs(".PP\n.I Options\n", f);
	else
		fputs(".SH OPTIONS\n", f);
	for (const struct nvl_help_opt *o = h->opts; o->flags; o++) {
		fputs(".TP\n.B ", f);
		roff_s(f, o->flags);
		if (o->arg) {
			fputs(" \\fI", f);
			roff(f, o->arg, strlen(o->arg), false);
			fputs("\\fR", f);
		}
		fputs("\n", f);
		roff_s(f, o->text);
		fputs("\n", f);
	}
	fputs(top ? ".SH EXAMPLES\n" : ".PP\n.I Examples\n", f);
	for (const struct nvl_help_example *e = h->examples; e->cmd; e++) {
		fputs(".TP\n.B ", f);
		roff(f, e->cmd, strlen(e->cmd), false);
		fputs("\n", f);
		roff_s(f, e->text);
		fputs("\n", f);
	}
}

void nvl_help_man(FILE *f)
{
	fputs(".\\\" nvl(1), generated by `nvl help --man` from "
	      "tools/nvl/help.c; do not edit.\n"
	      ".TH NVL 1 \"\" \"nouvelle\" \"User Commands\"\n"
	      ".ad l\n.nh\n"
	      ".SH NAME\n"
	      "nvl \\- the nouvelle command\\-line tool\n",
	      f);
	man_command(f, &table[0], true);
	fputs(".SH COMMANDS\n", f);
	for (size_t i = 1; i < NTABLE; i++)
		man_command(f, &table[i], false);
	fputs(".SH EXIT STATUS\n"
	      ".TP\n.B 0\nsuccess\n"
	      ".TP\n.B 1\nfailure (a bad input file, a failing check, an "
	      "I/O error); the reason is on stderr\n"
	      ".TP\n.B 2\nusage error (an unknown command or option, a "
	      "missing argument)\n"
	      ".SH ENVIRONMENT\n"
	      ".TP\n.B NO_COLOR\n"
	      "when set and not empty, no colour, even with FORCE_COLOR\n"
	      ".TP\n.BR FORCE_COLOR \", \" CLICOLOR_FORCE\n"
	      "colour even when the output is not a terminal\n"
	      ".TP\n.B NVL_DEBUG\n"
	      "comma list of log categories (err, sync, sched, mm, vm, gsp, "
	      "nv, model, push, all)\n"
	      ".TP\n.B NVL_FIRMWARE_PATH\n"
	      "colon\\-separated firmware search path for\n.B nvl fw\n"
	      ".SH SEE ALSO\n"
	      ".BR nvidia\\-smi (1),\n.BR nvtop (1),\n"
	      ".BR intel_gpu_top (1)\n",
	      f);
}

/* ---- bash completion --------------------------------------------------- */

/* The long and short option names of @h, space-separated. */
static void bash_opts(FILE *f, const struct nvl_help *h)
{
	bool first = true;

	for (const struct nvl_help_opt *o = h->opts; o->flags; o++) {
		const char *s = o->flags;

		while (*s) {
			size_t n = strcspn(s, ", ");

			if (n) {
				fprintf(f, "%s%.*s", first ? "" : " ", (int)n,
					s);
				first = false;
			}
			s += n;
			s += strspn(s, ", ");
		}
	}
}

/* Options taking a file name as argument: complete files after them. */
static void bash_file_opts(FILE *f, const struct nvl_help *h)
{
	for (const struct nvl_help_opt *o = h->opts; o->flags; o++) {
		if (!o->arg ||
		    (strcmp(o->arg, "FILE") && strcmp(o->arg, "OUT")))
			continue;
		const char *s = o->flags;

		while (*s) {
			size_t n = strcspn(s, ", ");

			if (n)
				fprintf(f, "%.*s|", (int)n, s);
			s += n;
			s += strspn(s, ", ");
		}
	}
}

void nvl_help_bash(FILE *f)
{
	fputs("# bash completion for nvl, generated by `nvl help "
	      "--bash-completion`\n"
	      "# from tools/nvl/help.c; do not edit.\n"
	      "_nvl()\n{\n"
	      "\tlocal cur prev cmd words opts\n"
	      "\tcur=${COMP_WORDS[COMP_CWORD]}\n"
	      "\tprev=${COMP_WORDS[COMP_CWORD-1]}\n"
	      "\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W '",
	      f);
	for (size_t i = 1; i < NTABLE; i++)
		fprintf(f, "%s ", table[i].name);
	bash_opts(f, &table[0]);
	fputs("' -- \"$cur\"))\n"
	      "\t\treturn\n"
	      "\tfi\n"
	      "\tcmd=${COMP_WORDS[1]}\n"
	      "\tcase \"$cmd\" in\n",
	      f);
	for (size_t i = 1; i < NTABLE; i++) {
		const struct nvl_help *h = &table[i];

		fprintf(f, "\t%s)\n\t\twords='%s'\n\t\topts='", h->name,
			h->words ? h->words : "");
		bash_opts(f, h);
		fputs("'\n\t\tcase \"$prev\" in\n\t\t", f);
		bash_file_opts(f, h);
		fputs("__none__)\n"
		      "\t\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
		      "\t\t\treturn ;;\n"
		      "\t\tesac\n\t\t;;\n",
		      f);
	}
	fputs("\t*)\n\t\treturn ;;\n"
	      "\tesac\n"
	      "\tif [[ $cur == -* ]]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
	      "\telif [ \"$COMP_CWORD\" -eq 2 ] && [ -n \"$words\" ]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
	      "\telse\n"
	      "\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	      "\tfi\n"
	      "}\n"
	      "complete -F _nvl nvl\n",
	      f);
}
