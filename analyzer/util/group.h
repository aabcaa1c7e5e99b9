/* SPDX-License-Identifier: MIT */
/*
 * group: members of a struct that are also one struct of their own, as the
 * kernel's struct_group_tagged() makes them: read one by one as plain
 * members (r->counter_name), copied or added whole (r->counted).
 */
#ifndef XP_GROUP_H
#define XP_GROUP_H

/* The members ... as plain members, and as struct TAG NAME, defined here. */
#define XP_GROUP(TAG, NAME, ...)                                                                   \
	union {                                                                                    \
		struct {                                                                           \
			__VA_ARGS__                                                                \
		};                                                                                 \
		struct TAG {                                                                       \
			__VA_ARGS__                                                                \
		} NAME;                                                                            \
	}

/* The same for a struct TAG defined before, whose members ... repeat. */
#define XP_GROUP_OF(TAG, NAME, ...)                                                                \
	union {                                                                                    \
		struct {                                                                           \
			__VA_ARGS__                                                                \
		};                                                                                 \
		struct TAG NAME;                                                                   \
	}

#endif
