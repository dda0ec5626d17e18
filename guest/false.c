/* SPDX-License-Identifier: MIT */
/* false: exits with status 1 (a tiny static tool, so the image needs no busybox). */
int main(void)
{
	return 1;
}
