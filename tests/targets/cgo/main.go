// SPDX-License-Identifier: MIT

// A cgo program (tests/integration/test_real.c builds it with the go tool):
// Go functions, one of which recurses deep enough that Go's runtime grows
// its goroutine's stack (it copies it, walking every frame by its return
// address), and a C function called from Go.  It prints what it computed
// and, on stderr, how many times it called the C function, in the form the
// tests read ("checker-truth: SYMBOL COUNT").
package main

/*
#include <stdint.h>

static int64_t c_calls;

int64_t c_twice(int64_t x)
{
	c_calls++;
	return 2 * x;
}

int64_t c_count(void)
{
	return c_calls;
}
*/
import "C"

import (
	"fmt"
	"os"
	"strconv"
)

//go:noinline
func goWork(n int) int {
	s := 0
	buf := make([]int, 64)
	for i := 0; i < n; i++ {
		buf[i%64] += i
		s += buf[(i*7)%64]
	}
	return s
}

//go:noinline
func deep(n int) int {
	var pad [512]byte
	pad[n%512] = byte(n)
	if n == 0 {
		return int(pad[0])
	}
	return deep(n-1) + int(pad[n%512])
}

func main() {
	n := 1000
	if len(os.Args) > 1 {
		n, _ = strconv.Atoi(os.Args[1])
	}
	total := 0
	for i := 0; i < n; i++ {
		total += goWork(i % 100)
		total += int(C.c_twice(C.int64_t(i)))
	}
	total += deep(5000)
	fmt.Println("total", total)
	fmt.Fprintf(os.Stderr, "checker-truth: c_twice %d\n", int64(C.c_count()))
}
