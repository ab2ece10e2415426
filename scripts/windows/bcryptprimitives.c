/*
 * A test-only stand-in for Windows's bcryptprimitives.dll under wine 8.0,
 * which lacks it: Go's runtime (1.24 and later) draws its random bytes from
 * ProcessPrng there and stops at start-up when the DLL is missing. Real
 * Windows 10 and later ship the DLL; this shim is copied into the wine
 * prefix that scripts/windows-test.sh makes, never shipped.
 */
#include <windows.h>
#include <ntsecapi.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	while (len > 0) {
		ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
		if (!RtlGenRandom(data, n))
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}
