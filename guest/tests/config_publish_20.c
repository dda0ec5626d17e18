/* SPDX-License-Identifier: MIT */
/*
 * config_publish_20: config_publish.c (its header comment tells the story)
 * with 20 admin sessions publishing at once.
 */
#define ADMINS	20
#define PROGRAM "config_publish_20"
#include "config_publish.c"
