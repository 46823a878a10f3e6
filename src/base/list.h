/* SPDX-License-Identifier: MIT */
/*
 * Intrusive doubly linked circular lists, in the shape every C systems
 * programmer knows: a head is a node that points to itself when empty.
 */
#ifndef NVL_BASE_LIST_H
#define NVL_BASE_LIST_H

#include "compiler.h"

struct nvl_list {
	struct nvl_list *next, *prev;
};

#define NVL_LIST_INIT(name)                                                    \
	{                                                                      \
		&(name), &(name)                                               \
	}

static inline void nvl_list_init(struct nvl_list *l)
{
	l->next = l;
	l->prev = l;
}

static inline bool nvl_list_empty(const struct nvl_list *l)
{
	return l->next == l;
}

static inline void __nvl_list_add(struct nvl_list *n, struct nvl_list *prev,
				  struct nvl_list *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}

/** nvl_list_add() - insert @n right after @head (stack order). */
static inline void nvl_list_add(struct nvl_list *n, struct nvl_list *head)
{
	__nvl_list_add(n, head, head->next);
}

/** nvl_list_add_tail() - insert @n right before @head (queue order). */
static inline void nvl_list_add_tail(struct nvl_list *n, struct nvl_list *head)
{
	__nvl_list_add(n, head->prev, head);
}

/** nvl_list_del() - unlink @n and leave it self-linked (safe to re-delete). */
static inline void nvl_list_del(struct nvl_list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->next = n;
	n->prev = n;
}

static inline void nvl_list_move_tail(struct nvl_list *n, struct nvl_list *head)
{
	nvl_list_del(n);
	nvl_list_add_tail(n, head);
}

/** nvl_list_splice_tail_init() - move all of @from to the tail of @to. */
static inline void nvl_list_splice_tail_init(struct nvl_list *from,
					     struct nvl_list *to)
{
	if (nvl_list_empty(from))
		return;
	from->next->prev = to->prev;
	to->prev->next = from->next;
	from->prev->next = to;
	to->prev = from->prev;
	nvl_list_init(from);
}

#define nvl_list_entry(ptr, type, member) container_of(ptr, type, member)
#define nvl_list_first_entry(head, type, member)                               \
	nvl_list_entry((head)->next, type, member)
#define nvl_list_last_entry(head, type, member)                                \
	nvl_list_entry((head)->prev, type, member)

#define nvl_list_for_each(pos, head)                                           \
	for (pos = (head)->next; pos != (head); pos = pos->next)

#define nvl_list_for_each_safe(pos, n, head)                                   \
	for (pos = (head)->next, n = pos->next; pos != (head);                 \
	     pos = n, n = pos->next)

#define nvl_list_for_each_entry(pos, head, member)                             \
	for (pos = nvl_list_entry((head)->next, __typeof__(*pos), member);     \
	     &pos->member != (head);                                           \
	     pos = nvl_list_entry(pos->member.next, __typeof__(*pos), member))

#define nvl_list_for_each_entry_reverse(pos, head, member)                     \
	for (pos = nvl_list_entry((head)->prev, __typeof__(*pos), member);     \
	     &pos->member != (head);                                           \
	     pos = nvl_list_entry(pos->member.prev, __typeof__(*pos), member))

#define nvl_list_for_each_entry_safe(pos, n, head, member)                     \
	for (pos = nvl_list_entry((head)->next, __typeof__(*pos), member),     \
	    n = nvl_list_entry(pos->member.next, __typeof__(*pos), member);    \
	     &pos->member != (head); pos = n,                                  \
	    n = nvl_list_entry(n->member.next, __typeof__(*n), member))

#endif /* NVL_BASE_LIST_H */
