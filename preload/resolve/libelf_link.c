// SPDX-License-Identifier: MIT
/*
 * libelf_link: what linking libelf's static archive into the shim takes.
 *
 * Every libelf function that fails records why through
 * __libelf_seterrno(), which the archive defines in elf_error.o beside
 * elf_errno() and elf_errmsg(), in a thread-local variable compiled for an
 * executable (local-exec TLS): a shared object cannot hold it, and the link
 * fails.  The shim never asks libelf why (it tests what each call returns),
 * so it defines __libelf_seterrno itself, and the linker leaves
 * elf_error.o out.  Should a later libelf record errors otherwise, the link
 * fails again with elf_error.o named: nothing breaks unseen.
 */

/* Called by libelf with the reason of a failure: dropped. */
void __libelf_seterrno(int value);

void __libelf_seterrno(int value)
{
	(void)value;
}
