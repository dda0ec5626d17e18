/* SPDX-License-Identifier: MIT */
/*
 * One crash artifact as rewind-harness writes it (version 2, a ledger lost
 * update found with a stall): the sample the artifact unit test and the
 * artifact fuzz target start from.
 */
#ifndef REWIND_TEST_ARTIFACT_SAMPLE_H
#define REWIND_TEST_ARTIFACT_SAMPLE_H

static const char artifact_sample[] =
	"{\"format\":\"rewind-crash\",\"version\":2,"
	"\"input\":{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"steps\","
	"\"seed\":\"0x0000000000000000\",\"injections\":[{\"step\":21,\"kind\":\"stall\","
	"\"us\":15000}]},"
	"\"input_hex\":\"52575349010000000000000000000000150000000200983a\","
	"\"job\":{\"command\":[\"/bin/myledger\"],\"kernel\":\"/k/bzImage\","
	"\"initramfs\":\"/k/initramfs.cpio\",\"add\":[\"myledger:/bin/myledger\"],"
	"\"mem_mib\":128,\"epoch_s\":1767225600,\"step_budget\":100000,\"stuck_ms\":2000,"
	"\"wall_ms\":10000,\"slice_blocks\":10000,\"block_ns\":1},"
	"\"added_files\":[{\"guest\":\"/bin/myledger\",\"mode\":493,"
	"\"xxh3\":\"0x464fd9ca811eb46b\"}],"
	"\"identity\":{\"kernel_xxh3\":\"0x682dfe81e849febc\","
	"\"initramfs_xxh3\":\"0xbfee06af635a33dd\",\"job_xxh3\":\"0x87737706c28ca9d0\","
	"\"cpu_model\":\"rewind-amd-v1\",\"abi_version\":4,\"quantum_ns\":5000},"
	"\"outcome\":{\"class\":\"signal\",\"detail\":\"job exited\",\"job_wait_status\":6,"
	"\"step\":39,\"injections_applied\":1},"
	"\"trace_xxh3\":\"0xf15bfc035c628530\",\"output_tail\":\"ledger: lost update\\n\"}";

#endif
