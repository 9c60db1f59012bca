/*
 * file/crc32c.h - CRC32C (Castagnoli, the polynomial 0x1EDC6F41, reflected),
 * the checksum of a stream file's chunks (docs/file-format.md, format 1.3)
 * and of what a live file's writer writes rarely (1.4: its header, its
 * calibration, its chunk headers and lists, file/checksums.h).  The
 * drainer computes it as it writes a chunk, the live writer on its slow
 * path, the reader as it catalogues; a call site never does.  Signal
 * safe once the first call returned (the live writer makes it when it
 * creates its file).
 */
#ifndef BP_FILE_CRC32C_H
#define BP_FILE_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* The CRC of n more bytes at p, after crc (0 to start): crc32c("123456789") is 0xe3069283. */
uint32_t bp_crc32c(uint32_t crc, const void *p, size_t n);

#endif /* BP_FILE_CRC32C_H */
