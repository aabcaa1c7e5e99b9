// SPDX-License-Identifier: MIT
/*
 * spec: read hook entries, KIND:PATTERN[@OBJECT], from EXTPROF_HOOKS (comma
 * or white-space separated) and EXTPROF_SPEC (a file, one per line, '#'
 * comments).  A malformed entry is one line naming it and where it stands;
 * the others still count.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "extprof/names.h"

#include "core/log.h"
#include "resolve/spec.h"

/*
 * The @n characters after an offset's "0x": 1 to 16 hex digits, and a '!'
 * after them when the user means an offset that is no function's start
 * (hooks_entry.c reads it).
 */
static bool spec_valid_offset(const char *hex, size_t n)
{
	if (n && hex[n - 1] == '!')
		n--;
	if (!n || n > 16)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!isxdigit((unsigned char)hex[i]))
			return false;
	}
	return true;
}

/* Split one entry in place; "where" names it in a message. */
static int spec_parse_entry(char *text, struct spec_entry *e, const char *where)
{
	char *colon = strchr(text, ':'), *at;

	if (!colon || colon == text || !colon[1]) {
		log_msg("%s '%s': expected KIND:PATTERN[@OBJECT]", where, text);
		return -EINVAL;
	}
	*colon = '\0';
	if (!extprof_kind_valid(text, strlen(text)) || strlen(text) >= sizeof(e->kind)) {
		log_msg("%s '%s:%s': kind must be " EXTPROF_KIND_SYNTAX ", at most %zu characters",
			where, text, colon + 1, sizeof(e->kind) - 1);
		return -EINVAL;
	}
	strcpy(e->kind, text);
	at = strchr(colon + 1, '@');
	if (at) {
		*at++ = '\0';
		if (!*at || strlen(at) >= sizeof(e->object)) {
			log_msg("%s '%s:%s@': the object after '@' is missing or too long", where,
				text, colon + 1);
			return -EINVAL;
		}
		strcpy(e->object, at);
	} else {
		e->object[0] = '\0';
	}
	if (!colon[1] || strlen(colon + 1) >= sizeof(e->pattern)) {
		log_msg("%s '%s:': the pattern is missing or too long", where, text);
		return -EINVAL;
	}
	strcpy(e->pattern, colon + 1);
	/* said here, once, not once per object searched */
	if (!strncmp(e->pattern, "0x", 2) &&
	    !spec_valid_offset(e->pattern + 2, strlen(e->pattern + 2))) {
		log_msg("%s '%s:%s': '%s' is not a hexadecimal offset", where, e->kind, e->pattern,
			e->pattern);
		return -EINVAL;
	}
	return 0;
}

bool spec_check_pattern(const char *pattern, const char *where)
{
	size_t n = strcspn(pattern, "@");

	if (strncmp(pattern, "0x", 2) || spec_valid_offset(pattern + 2, n - 2))
		return true;
	log_msg("%s=%s: not a hexadecimal offset; not used", where, pattern);
	return false;
}

static bool spec_is_sep(char c)
{
	return c == ',' || isspace((unsigned char)c);
}

/* Room in @list for one more entry, doubling it: 0, or -ENOMEM (said) or -E2BIG. */
static int spec_room(struct spec_list *list, const char *where)
{
	struct spec_entry *v;
	int cap;

	if (list->n < list->cap)
		return 0;
	if (list->n == SPEC_MAX_ENTRIES) {
		if (!list->full)
			log_msg("%s: more than %d entries; the rest are ignored", where,
				SPEC_MAX_ENTRIES);
		list->full = true;
		return -E2BIG;
	}
	cap = list->cap ? list->cap * 2 : 64;
	if (cap > SPEC_MAX_ENTRIES)
		cap = SPEC_MAX_ENTRIES;
	v = realloc(list->entries, (size_t)cap * sizeof(*v));
	if (!v) {
		if (!list->full)
			log_msg("%s: no memory for more entries; the rest are ignored", where);
		list->full = true;
		return -ENOMEM;
	}
	list->entries = v;
	list->cap = cap;
	return 0;
}

/* Add every entry of @text to @list; @origin and @line name where they are. */
int spec_parse_text(struct spec_list *list, const char *text, const char *origin, int line)
{
	int err;

	int index = 0, bad = 0;

	while (*text) {
		char buf[sizeof(list->entries[0].pattern) + 64], where[320];
		size_t n = 0;

		while (*text && spec_is_sep(*text))
			text++;
		if (!*text)
			break;
		while (text[n] && !spec_is_sep(text[n]))
			n++;
		index++;
		if (line)
			snprintf(where, sizeof(where), "%s:%d", origin, line);
		else
			snprintf(where, sizeof(where), "%s entry %d", origin, index);
		if (n >= sizeof(buf)) {
			log_msg("%s: entry too long", where);
			bad++;
		} else if ((err = spec_room(list, where))) {
			return err;
		} else {
			memcpy(buf, text, n);
			buf[n] = '\0';
			if (spec_parse_entry(buf, &list->entries[list->n], where))
				bad++;
			else
				list->n++;
		}
		text += n;
	}
	return bad ? -EINVAL : 0;
}

static size_t spec_count_lines(const char *buf, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += buf[i] == '\n';
	return n;
}

/* What a spec file that is not a regular file is, for its one line. */
static const char *spec_file_kind(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return "a device";
	return "not a regular file";
}

/*
 * EXTPROF_SPEC: read at start-up, whole, into memory of its size, up to
 * SPEC_FILE_MAX.  A FIFO, a directory or a device is refused (reading one
 * could block the program before main); a larger file is read up to its
 * last whole line within the first SPEC_FILE_MAX bytes, and a line says so.
 */
int spec_parse_file(struct spec_list *list, const char *path)
{
	size_t len = 0, cap;
	int fd, lineno = 0, err = 0;
	char *buf, *line, more;
	struct stat st;
	ssize_t n = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		err = -errno;
		log_msg("EXTPROF_SPEC %s: %s; nothing of it is hooked", path, log_strerror(errno));
		return err;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		log_msg("EXTPROF_SPEC %s: %s, not a file of entries; nothing of it is hooked", path,
			spec_file_kind(st.st_mode));
		close(fd);
		return -EINVAL;
	}
	cap = (uint64_t)st.st_size < SPEC_FILE_MAX ? (size_t)st.st_size : SPEC_FILE_MAX;
	buf = malloc(cap + 1);
	if (!buf) {
		log_msg("EXTPROF_SPEC %s: no memory for its %zu bytes; nothing of it is hooked",
			path, cap);
		close(fd);
		return -ENOMEM;
	}
	while (len < cap && (n = read(fd, buf + len, cap - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		len += (size_t)n;
	}
	if (n < 0) {
		err = -errno;
		log_msg("EXTPROF_SPEC %s: %s; nothing of it is hooked", path, log_strerror(errno));
		close(fd);
		free(buf);
		return err;
	}
	if (len == SPEC_FILE_MAX && read(fd, &more, 1) == 1) {
		char *last = memrchr(buf, '\n', len);

		len = last ? (size_t)(last - buf) + 1 : 0;
		log_msg("EXTPROF_SPEC %s: larger than %u bytes; the lines after line %zu are "
			"ignored",
			path, SPEC_FILE_MAX, spec_count_lines(buf, len));
		err = -EFBIG;
	}
	close(fd);
	buf[len] = '\0';
	for (line = buf; line && *line;) {
		char *next = strchr(line, '\n'), *hash;

		if (next)
			*next++ = '\0';
		lineno++;
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		if (spec_parse_text(list, line, path, lineno))
			err = err ? err : -EINVAL;
		line = next;
	}
	free(buf);
	return err;
}
