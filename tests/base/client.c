// SPDX-License-Identifier: MIT
/*
 * TEST: client
 * Description: per-client handle tables: handles are per client, lookups take
 * references, close drops them, destroying a client drops every handle,
 * unknown handles fail; a read section keeps what it found alive until it
 * ends (closing the handle waits for it), and rcu tables grow and shrink
 * under lock-free readers (run under ASan and TSan).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

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
	nvl_handle_kind_register(NVL_HANDLE_VM, &obj_ops);
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

struct section_reader {
	struct nvl_client *c;
	uint32_t h;
	struct obj *found;
	atomic_int inside, go;
	int freed_inside;
};

static void *section_fn(void *arg)
{
	struct section_reader *r = arg;

	assert_true(nvl_client_read_begin());
	r->found = nvl_client_find_rcu(r->c, NVL_HANDLE_VM, r->h);
	atomic_store(&r->inside, 1);
	while (!atomic_load(&r->go))
		sched_yield();
	r->freed_inside = r->found ? r->found->freed : -1;
	nvl_client_read_end();
	return NULL;
}

struct remover {
	struct nvl_client *c;
	uint32_t h;
	atomic_int done;
	int ret;
};

static void *remove_fn(void *arg)
{
	struct remover *w = arg;

	w->ret = nvl_client_handle_remove(w->c, NVL_HANDLE_VM, w->h);
	atomic_store(&w->done, 1);
	return NULL;
}

/*
 * A read section pins what it found without a reference: closing its
 * handle takes it out of the table at once (a later section does not find
 * it) but drops the handle's reference only when the section has ended.
 */
static void read_sections_hold_what_they_found(void **state)
{
	struct obj o = {.freed = 0};
	struct section_reader r = {.inside = 0, .go = 0};
	struct remover w = {.done = 0};
	pthread_t rt, wt;
	struct nvl_client *c;
	uint32_t h;

	nvl_kref_init(&o.ref);
	assert_int_equal(nvl_client_alloc(NULL, &c), 0);
	assert_int_equal(nvl_client_handle_add(c, NVL_HANDLE_VM, &o, &h), 0);
	obj_put(&o); /* the handle's reference is the only one */
	r.c = w.c = c;
	r.h = w.h = h;
	/*
	 * This thread's first section registers it, under the lock a grace
	 * period holds: first here, as the section below waits for us (a
	 * real section never waits for anything).
	 */
	assert_true(nvl_client_read_begin());
	nvl_client_read_end();
	assert_int_equal(pthread_create(&rt, NULL, section_fn, &r), 0);
	while (!atomic_load(&r.inside))
		sched_yield();
	assert_ptr_equal(r.found, &o);
	assert_int_equal(pthread_create(&wt, NULL, remove_fn, &w), 0);
	/* gone from the table for every section that begins now */
	for (;;) {
		void *p;

		assert_true(nvl_client_read_begin());
		p = nvl_client_find_rcu(c, NVL_HANDLE_VM, h);
		nvl_client_read_end();
		if (!p)
			break;
		sched_yield();
	}
	/* ... but not dropped while the older section lasts */
	for (int i = 0; i < 200; i++) {
		assert_int_equal(atomic_load(&w.done), 0);
		assert_int_equal(o.freed, 0);
		sched_yield();
	}
	atomic_store(&r.go, 1);
	pthread_join(rt, NULL);
	pthread_join(wt, NULL);
	assert_int_equal(r.freed_inside, 0);
	assert_int_equal(w.ret, 0);
	assert_int_equal(o.freed, 1);
	nvl_client_put(c);
}

#define RCU_OBJS 300

struct rcu_obj {
	struct nvl_kref ref;
	uint32_t handle; /* written before the handle is added */
	int freed;
};

static void rcu_get(void *p)
{
	nvl_kref_get(&((struct rcu_obj *)p)->ref);
}

static void rcu_put(void *p)
{
	struct rcu_obj *o = p;

	if (nvl_kref_put(&o->ref))
		o->freed = 1; /* only the handle held it */
}

static const struct nvl_handle_ops rcu_ops = {.get = rcu_get, .put = rcu_put};

struct rcu_reader {
	struct nvl_client *c;
	atomic_int *stop;
	long found;
	int bad;
};

static void *rcu_reader_fn(void *arg)
{
	struct rcu_reader *r = arg;
	uint32_t h = 1;

	while (!atomic_load(r->stop)) {
		struct rcu_obj *o;

		assert_true(nvl_client_read_begin());
		o = nvl_client_find_rcu(r->c, NVL_HANDLE_VM, h);
		if (o) {
			r->found++;
			/* alive and the one the handle names, section-long */
			if (__atomic_load_n(&o->freed, __ATOMIC_RELAXED) ||
			    o->handle != h)
				r->bad++;
		}
		nvl_client_read_end();
		h = h % RCU_OBJS + 1;
	}
	return NULL;
}

/*
 * Lock-free readers while the table grows past several slot arrays and
 * shrinks again, handles closed and reused: every object a section finds
 * is live and is the one its handle names; the slot arrays the table
 * outgrew are freed after grace periods (ASan sees a reader left behind).
 */
static void rcu_tables_change_under_readers(void **state)
{
	static struct rcu_obj objs[RCU_OBJS];
	struct rcu_reader r[2];
	pthread_t th[2];
	atomic_int stop = 0;
	struct nvl_client *c;

	nvl_handle_kind_register(NVL_HANDLE_VM, &rcu_ops);
	assert_int_equal(nvl_client_alloc(NULL, &c), 0);
	for (int i = 0; i < 2; i++) {
		r[i] = (struct rcu_reader){.c = c, .stop = &stop};
		assert_int_equal(
			pthread_create(&th[i], NULL, rcu_reader_fn, &r[i]), 0);
	}
	for (int round = 0; round < 4; round++) {
		for (int i = 0; i < RCU_OBJS; i++) {
			uint32_t h;

			nvl_kref_init(&objs[i].ref);
			objs[i].freed = 0;
			objs[i].handle = (uint32_t)i + 1; /* lowest free id */
			assert_int_equal(nvl_client_handle_add(c, NVL_HANDLE_VM,
							       &objs[i], &h),
					 0);
			assert_int_equal(h, (uint32_t)i + 1);
			rcu_put(&objs[i]);
		}
		for (int i = 0; i < RCU_OBJS; i++) {
			int k = (i * 7 + round) % RCU_OBJS;

			assert_int_equal(
				nvl_client_handle_remove(c, NVL_HANDLE_VM,
							 objs[k].handle),
				0);
			assert_int_equal(objs[k].freed, 1);
		}
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < 2; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(r[i].bad, 0);
	}
	nvl_client_put(c);
	nvl_handle_kind_register(NVL_HANDLE_VM, &obj_ops);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(read_sections_hold_what_they_found),
	cmocka_unit_test(rcu_tables_change_under_readers),
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
