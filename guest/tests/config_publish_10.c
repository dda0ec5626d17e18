/* SPDX-License-Identifier: MIT */
/*
 * config_publish_10: config_publish.c (its header comment tells the story)
 * with 10 admin sessions publishing at once.
 */
#define ADMINS	10
#define PROGRAM "config_publish_10"
#include "config_publish.c"
