/*
 * A stand-in for Windows' bcryptprimitives.dll under Wine 8.0, which lacks ProcessPrng: Rust's
 * std calls ProcessPrng for its hash-map keys at start, so without it every Rust .exe exits 53
 * under Wine. ProcessPrng fills the buffer from the system RNG through BCryptGenRandom, as the
 * real one does. Only for running the tests under Wine in CI (scripts/windows-ci.sh); never
 * shipped. Build: x86_64-w64-mingw32-gcc -shared -O2 -o bcryptprimitives.dll
 *   bcryptprimitives.c bcryptprimitives.def -lbcrypt
 */
#include <windows.h>
#include <bcrypt.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
    while (len > 0) {
        ULONG chunk = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (BCryptGenRandom(NULL, data, chunk, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0)
            return FALSE;
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
