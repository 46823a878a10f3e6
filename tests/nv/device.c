// SPDX-License-Identifier: MIT
/*
 * TEST: devices through the public API (include/nouvelle/device.h):
 * open with every spec form, what the probe learnt from BOOT_0 and the
 * firmware's static info, open/close/open, two devices at once, and
 * allocation failures over open.
 *
 * Class numbers are NVIDIA's (clc46f.h TURING_CHANNEL_GPFIFO_A 0xc46f,
 * clc56f.h AMPERE_CHANNEL_GPFIFO_A 0xc56f, clc86f.h HOPPER_CHANNEL_GPFIFO_A
 * 0xc86f; clc5b5.h TURING_DMA_COPY_A 0xc5b5, clc7b5.h AMPERE_DMA_COPY_B
 * 0xc7b5 on GA10x/AD10x, clc8b5.h HOPPER_DMA_COPY_A 0xc8b5); BOOT_0's
 * chip id is ARCHITECTURE 28:24 | IMPLEMENTATION 23:20 (dev_boot).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nouvelle/nouvelle.h>

#include "t.h"

#define MIB (1ull << 20)
#define GIB (1ull << 30)

static void check_info(const struct nvl_device_info *in, const char *chip,
		       uint32_t chip_id, uint64_t vram, uint32_t host,
		       uint32_t ce, uint32_t mmu)
{
	assert_string_equal(in->chip, chip);
	assert_int_equal((in->boot0 >> 20) & 0x1ff, chip_id);
	assert_int_equal(in->vram_size, vram);
	/* WPR2 and RM's carve-out come off the top */
	assert_true(in->vram_usable > vram / 4);
	assert_true(in->vram_usable < vram);
	assert_int_equal(in->host_class, host);
	assert_int_equal(in->ce_class, ce);
	assert_int_equal(in->mmu_version, mmu);
	assert_int_equal(in->va_bits, mmu == 3 ? 57 : 49);
	assert_true(in->num_ce >= 1);
	assert_true(in->num_channels >= 64);
	assert_true(in->max_channels_per_client >= 1);
	assert_true(in->gpu_name[0]);
	assert_true(in->fw_version[0]);
	assert_true(in->boot_ns > 0);
}

static void open_default(void **state)
{
	struct nvl_device_info in;
	struct nvl_device *dev;

	(void)state;
	assert_int_equal(nvl_device_open(NULL, NULL, &dev), 0);
	assert_int_equal(nvl_device_query(dev, &in), 0);
	check_info(&in, "tiny", 0x167, 256 * MIB, 0xc46f, 0xc5b5, 2);
	/* the default, or the version-matrix run's NVL_FW_VERSION */
	assert_string_equal(in.fw_version,
			    getenv("NVL_FW_VERSION") &&
					    getenv("NVL_FW_VERSION")[0]
				    ? getenv("NVL_FW_VERSION")
				    : "535.113.01");
	assert_int_equal(in.num_ce, 2);
	assert_int_equal(in.num_channels, 64);
	assert_string_equal(in.family, "Turing");
	nvl_device_close(dev);
	/* "" and "model" are the same default */
	assert_int_equal(nvl_device_open("", NULL, &dev), 0);
	nvl_device_close(dev);
	assert_int_equal(nvl_device_open("model", NULL, &dev), 0);
	nvl_device_close(dev);
}

static void every_chip(void **state)
{
	static const struct {
		const char *spec, *chip;
		uint32_t id;
		uint64_t vram;
		uint32_t host, ce, mmu;
	} c[] = {
		{"model:tu102", "tu102", 0x162, 11 * GIB, 0xc46f, 0xc5b5, 2},
		{"model:ga102", "ga102", 0x172, 24 * GIB, 0xc56f, 0xc7b5, 2},
		{"model:ad102", "ad102", 0x192, 24 * GIB, 0xc56f, 0xc7b5, 2},
		{"model:gh100", "gh100", 0x180, 80 * GIB, 0xc86f, 0xc8b5, 3},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct nvl_device_info in;
		struct nvl_device *dev;

		assert_int_equal(nvl_device_open(c[i].spec, NULL, &dev), 0);
		assert_int_equal(nvl_device_query(dev, &in), 0);
		check_info(&in, c[i].chip, c[i].id, c[i].vram, c[i].host,
			   c[i].ce, c[i].mmu);
		nvl_device_close(dev);
	}
}

static void bad_specs(void **state)
{
	struct nvl_device_opts o = {0};
	struct nvl_device *dev = (void *)0x1;

	(void)state;
	assert_int_equal(nvl_device_open("vfio:0000:01:00.0", NULL, &dev),
			 -ENODEV);
	assert_non_null(strstr(nvl_last_error(), "VFIO"));
	assert_int_equal(nvl_device_open("model:nv50", NULL, &dev), -ENODEV);
	assert_non_null(strstr(nvl_last_error(), "nv50"));
	assert_int_equal(nvl_device_open("model:", NULL, &dev), -EINVAL);
	assert_int_equal(nvl_device_open("pci:1", NULL, &dev), -EINVAL);
	assert_int_equal(nvl_device_open(NULL, NULL, NULL), -EINVAL);
	o.vram_size = 100 * MIB;
	assert_int_equal(nvl_device_open(NULL, &o, &dev), -EINVAL);
	o.vram_size = 300 * MIB + 1;
	assert_int_equal(nvl_device_open(NULL, &o, &dev), -EINVAL);
	o.vram_size = 0;
	o.fw_version = "";
	assert_int_equal(nvl_device_open(NULL, &o, &dev), -EINVAL);
	/* a version nobody built: no firmware, the message says where */
	o.fw_version = "999.1";
	assert_int_equal(nvl_device_open(NULL, &o, &dev), -ENOENT);
	assert_non_null(strstr(nvl_last_error(), "999.1"));
	assert_ptr_equal(dev, (void *)0x1);
	assert_int_equal(nvl_device_query(NULL, NULL), -EINVAL);
	nvl_device_close(NULL);
}

static void options(void **state)
{
	struct nvl_device_opts o = {.vram_size = 512 * MIB,
				    .fw_version = "535.113.01"};
	struct nvl_device_info in;
	struct nvl_device *dev;

	(void)state;
	assert_int_equal(nvl_device_open("model:tu102", &o, &dev), 0);
	assert_int_equal(nvl_device_query(dev, &in), 0);
	check_info(&in, "tu102", 0x162, 512 * MIB, 0xc46f, 0xc5b5, 2);
	assert_string_equal(in.fw_version, "535.113.01");
	nvl_device_close(dev);
}

static void reopen_and_two_at_once(void **state)
{
	struct nvl_device_info a, b;
	struct nvl_device *d1, *d2;

	(void)state;
	for (int i = 0; i < 3; i++) {
		assert_int_equal(nvl_device_open(NULL, NULL, &d1), 0);
		nvl_device_close(d1);
	}
	assert_int_equal(nvl_device_open("model:tiny", NULL, &d1), 0);
	assert_int_equal(nvl_device_open("model:ga102", NULL, &d2), 0);
	assert_int_equal(nvl_device_query(d1, &a), 0);
	assert_int_equal(nvl_device_query(d2, &b), 0);
	assert_string_equal(a.chip, "tiny");
	assert_string_equal(b.chip, "ga102");
	/* closing one leaves the other working */
	nvl_device_close(d1);
	assert_int_equal(nvl_device_query(d2, &b), 0);
	assert_int_equal(b.vram_size, 24 * GIB);
	assert_int_equal(nvl_device_open("model:tiny", NULL, &d1), 0);
	nvl_device_close(d2);
	nvl_device_close(d1);
}

/*
 * Every allocation of open on this thread fails once: each early point is
 * a firmware load (tens of MB), so the sweep takes a stride through the
 * load and boot and every one of the last allocations (probe, RM objects);
 * T_SCALE=<n> makes the stride n times finer (T_SCALE=1000: every point).
 */
/*
 * nvl_device_sensors(): a sample through the firmware on an idle device of
 * each kind of board: temperatures near the model's ambient, clocks no
 * faster than their maxima, the memory temperature only where the chip has
 * HBM (gh100), the fan only where the board has one (not gh100).
 */
static void sensors(void **state)
{
	static const struct {
		const char *spec;
		bool hbm;
	} c[] = {{"model:ad102", false}, {"model:gh100", true}};

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct nvl_sensors s, z;
		struct nvl_device *dev;

		assert_int_equal(nvl_device_open(c[i].spec, NULL, &dev), 0);
		memset(&s, 0, sizeof(s));
		assert_int_equal(nvl_device_sensors(dev, &s), 0);
		assert_true(s.timestamp_ns > 0);
		assert_true(nvl_sensors_has(&s, NVL_SENSOR_GPU_TEMP));
		assert_in_range(s.gpu_temp_c, 15, 80);
		assert_int_equal(nvl_sensors_has(&s, NVL_SENSOR_MEM_TEMP),
				 c[i].hbm);
		assert_int_equal(nvl_sensors_has(&s, NVL_SENSOR_FAN),
				 !c[i].hbm);
		assert_true(nvl_sensors_has(&s, NVL_SENSOR_POWER));
		assert_true(s.power_mw <= s.power_limit_mw);
		assert_true(nvl_sensors_has(&s, NVL_SENSOR_CLK_GR));
		assert_true(nvl_sensors_has(&s, NVL_SENSOR_CLK_GR_MAX));
		assert_true(s.clk_gr_mhz > 0 &&
			    s.clk_gr_mhz <= s.clk_gr_max_mhz);
		assert_true(nvl_sensors_has(&s, NVL_SENSOR_PSTATE));
		/* a bad argument changes nothing */
		z = s;
		assert_int_equal(nvl_device_sensors(dev, NULL), -EINVAL);
		assert_int_equal(nvl_device_sensors(NULL, &s), -EINVAL);
		assert_memory_equal(&z, &s, sizeof(s));
		nvl_device_close(dev);
	}
}

static void open_alloc_failures(void **state)
{
	struct nvl_device *dev = NULL;
	unsigned long n0, n, stride, tried = 0;

	(void)state;
	n0 = nvl_alloc_count();
	assert_int_equal(nvl_device_open(NULL, NULL, &dev), 0);
	n = nvl_alloc_count() - n0;
	nvl_device_close(dev);
	assert_true(n > 10);
	stride = (unsigned long)(n / 4 / t_scale());
	if (!stride)
		stride = 1;
	for (unsigned long nth = 1; nth <= n; nth++) {
		int ret;

		if (nth % stride && nth + 8 < n)
			continue;
		dev = NULL;
		nvl_fault_fail_nth(nth, NVL_FAULT_THIS_THREAD);
		ret = nvl_device_open(NULL, NULL, &dev);
		if (!nvl_fault_hits()) {
			nvl_fault_off();
			assert_int_equal(ret, 0);
			nvl_device_close(dev);
			continue;
		}
		nvl_fault_off();
		tried++;
		/* failed cleanly: -ENOMEM, nothing returned; ASan's leak
		 * check at exit shows nothing was left allocated */
		assert_int_equal(ret, -ENOMEM);
		assert_null(dev);
	}
	assert_true(tried >= 8);
	/* and the device opens again */
	assert_int_equal(nvl_device_open(NULL, NULL, &dev), 0);
	nvl_device_close(dev);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(open_default),
		cmocka_unit_test(every_chip),
		cmocka_unit_test(bad_specs),
		cmocka_unit_test(options),
		cmocka_unit_test(reopen_and_two_at_once),
		cmocka_unit_test(sensors),
		cmocka_unit_test(open_alloc_failures),
	};

	return t_main(__FILE__, tests, sizeof(tests) / sizeof(tests[0]), argc,
		      argv);
}
