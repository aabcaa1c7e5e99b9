// SPDX-License-Identifier: MIT
/*
 * luacalls: Lua 5.4 through Debian's liblua5.4, embedded: N protected calls
 * (lua_pcallk) of a Lua function computing fib(K) by recursion, which
 * liblua5.4 runs in luaV_execute, for the steps counter's nesting test
 * (tests/integration/test_translate.c): no table or string is touched while
 * it runs, so each call does the same instructions.
 *
 *   luacalls [-n N] [-k K]
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>

static const char luacalls_fib[] =
	"local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end\n"
	"return fib\n";

int main(int argc, char **argv)
{
	long n = 10, k = 15, sum = 0;
	lua_State *L;
	int opt;

	while ((opt = getopt(argc, argv, "n:k:")) != -1) {
		if (opt == 'n')
			n = atol(optarg);
		else if (opt == 'k')
			k = atol(optarg);
		else
			return 2;
	}
	L = luaL_newstate();
	if (!L || luaL_loadstring(L, luacalls_fib) || lua_pcall(L, 0, 1, 0))
		return 1;
	for (long i = 0; i < n; i++) {
		lua_pushvalue(L, -1);
		lua_pushinteger(L, k);
		if (lua_pcallk(L, 1, 1, 0, 0, NULL))
			return 1;
		sum += (long)lua_tointeger(L, -1);
		lua_pop(L, 1);
	}
	printf("lua: %ld calls of fib(%ld), %ld\n", n, k, sum);
	lua_close(L);
	return 0;
}
