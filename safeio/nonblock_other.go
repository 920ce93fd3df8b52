//go:build !unix

package safeio

const nonBlock = 0
