// SPDX-License-Identifier: MIT
/*
 * TEST: client
 * Description: per-client handle tables: handles are per client, lookups take
 * references, close drops them, destroying a client drops every handle,
 * unknown handles fail.
 */
#include <errno.h>

#include "t.h"
#include "base/client.h"
#include "nouvelle/core.h"

struct obj {
	struct nvl_kref ref;
	int freed;
};

static void obj_get(void *p)
{
	nvl_kref_get(&((struct obj *)p)->ref);
}

static void obj_put(void *p)
{
	struct obj *o = p;

	if (nvl_kref_put(&o->ref))
		o->freed++;
}

static const struct nvl_handle_ops obj_ops = {.get = obj_get, .put = obj_put};

static int setup(void **state)
{
	nvl_handle_kind_register(NVL_HANDLE_CHANNEL, &obj_ops);
	return 0;
}

static void handles_are_per_client(void **state)
{
	struct nvl_client *a, *b;
	struct obj o = {.freed = 0};
	uint32_t ha, hb;

	nvl_kref_init(&o.ref);
	assert_int_equal(nvl_client_alloc(NULL, &a), 0);
	assert_int_equal(nvl_client_alloc(NULL, &b), 0);
	assert_int_not_equal(a->id, b->id);
	assert_int_equal(nvl_client_handle_add(a, NVL_HANDLE_CHANNEL, &o, &ha),
			 0);
	assert_int_equal(nvl_client_handle_add(b, NVL_HANDLE_CHANNEL, &o, &hb),
			 0);
	assert_int_equal(ha, 1);
	assert_int_equal(hb, 1);
	assert_int_equal(nvl_kref_read(&o.ref), 3);
	/* same handle number in another kind table is unknown */
	assert_null(nvl_client_handle_get(a, NVL_HANDLE_VM, ha));
	assert_int_equal(nvl_client_handle_remove(a, NVL_HANDLE_CHANNEL, ha),
			 0);
	assert_int_equal(nvl_client_handle_remove(a, NVL_HANDLE_CHANNEL, ha),
			 -ENOENT);
	assert_int_equal(nvl_kref_read(&o.ref), 2);
	nvl_client_put(a);
	nvl_client_put(b); /* drops b's handle */
	assert_int_equal(nvl_kref_read(&o.ref), 1);
	assert_int_equal(o.freed, 0);
	obj_put(&o);
	assert_int_equal(o.freed, 1);
}

static void lookup_takes_a_reference(void **state)
{
	struct nvl_client *c;
	struct obj o = {.freed = 0};
	uint32_t h;
	struct obj *got;

	nvl_kref_init(&o.ref);
	assert_int_equal(nvl_client_alloc(NULL, &c), 0);
	assert_int_equal(nvl_client_handle_add(c, NVL_HANDLE_CHANNEL, &o, &h),
			 0);
	got = nvl_client_handle_get(c, NVL_HANDLE_CHANNEL, h);
	assert_ptr_equal(got, &o);
	assert_int_equal(nvl_client_handle_count(c, NVL_HANDLE_CHANNEL), 1);
	nvl_client_put(c); /* handle gone, our lookup ref keeps it alive */
	assert_int_equal(o.freed, 0);
	obj_put(got);
	obj_put(&o);
	assert_int_equal(o.freed, 1);
}

static void unknown_handles_fail(void **state)
{
	struct nvl_client *c;

	assert_int_equal(nvl_client_alloc(NULL, &c), 0);
	assert_null(nvl_client_handle_get(c, NVL_HANDLE_CHANNEL, 0));
	assert_null(nvl_client_handle_get(c, NVL_HANDLE_CHANNEL, 1));
	assert_null(nvl_client_handle_get(c, NVL_HANDLE_CHANNEL, 12345));
	assert_int_equal(nvl_client_handle_remove(c, NVL_HANDLE_CHANNEL, 0),
			 -ENOENT);
	nvl_client_put(c);
}

static void public_client_api_reports_errors(void **state)
{
	struct nvl_client *c = NULL;

	assert_int_equal(nvl_client_create(NULL), -EINVAL);
	assert_string_not_equal(nvl_last_error(), "");
	nvl_fault_fail_nth(1, NVL_FAULT_THIS_THREAD);
	assert_int_equal(nvl_client_create(&c), -ENOMEM);
	nvl_fault_off();
	assert_null(c);
	assert_int_equal(nvl_client_create(&c), 0);
	nvl_client_destroy(c);
	nvl_client_destroy(NULL);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(handles_are_per_client),
	cmocka_unit_test(lookup_takes_a_reference),
	cmocka_unit_test(unknown_handles_fail),
	cmocka_unit_test(public_client_api_reports_errors),
};

int main(int argc, char **argv)
{
	setup(NULL);
	return t_main(__FILE__, tests, sizeof(tests) / sizeof(tests[0]), argc,
		      argv);
}
