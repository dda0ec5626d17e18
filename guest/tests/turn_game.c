/* SPDX-License-Identifier: MIT */
/*
 * turn_game: PLAYERS player threads sit in a ring and take turns, ROUNDS
 * rounds, as in a board game: the turn passes like a token from each player
 * to the next. The game starts (main gives the turn to player 0) when
 * every player has sat down. The player whose turn it is owns the game
 * record: it writes
 * its move at record[moves], then ends its turn, which under the game's
 * lock hands the turn to the next player, wakes that player and counts the
 * move.
 *
 * The bug: wait_turn() has a fast path that reads the turn without the
 * lock ("when it is already my turn, do not bother with the lock"). The
 * turn and the move count change together under the lock, so a reader
 * without it can see the turn handed on before the move is counted: the
 * next player then writes its move over the previous one.
 *
 * The interleaving (one preemption, bug depth 2): a player is preempted in
 * end_turn() after it stored the new turn and before it counted the move,
 * and the next player, which had not yet come back to wait for its turn
 * (it is runnable: under strict priorities, the player below all the
 * others keeps being so from its sitting down on), runs its wait_turn() in
 * that window and takes the fast path. It needs that hand-off and no
 * other: a player that waits in
 * pthread_cond_wait() wakes only into the lock, which the preempted player
 * holds. Without preemptions a player that reads its turn finds the
 * previous turn's move counted.
 *
 * Detection: after the game main checks the record: each move must be the
 * one of the player whose turn it was ("turn_game: move 13 was made by
 * player 0, expected player 1", or "move 14 is missing").
 *
 * Native failures: see README.md.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define PLAYERS 6
#define ROUNDS	4
#define MOVES	(PLAYERS * ROUNDS)

struct move {
	int player; /* -1: no move recorded */
	int round;
};

static pthread_mutex_t game_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn_changed[PLAYERS];
static pthread_cond_t all_seated = PTHREAD_COND_INITIALIZER;
static int seated;		  /* players sat down: game_lock */
static volatile int turn = -1;	  /* whose turn (-1: not started): game_lock */
static volatile int moves;	  /* moves made: game_lock */
static struct move record[MOVES]; /* written by the player whose turn it is */

static void sit_down(void)
{
	pthread_mutex_lock(&game_lock);
	if (++seated == PLAYERS)
		pthread_cond_signal(&all_seated);
	pthread_mutex_unlock(&game_lock);
}

/* main: waits until every player sits, then gives the turn to player 0. */
static void start_game(void)
{
	pthread_mutex_lock(&game_lock);
	while (seated < PLAYERS)
		pthread_cond_wait(&all_seated, &game_lock);
	turn = 0;
	pthread_cond_signal(&turn_changed[0]);
	pthread_mutex_unlock(&game_lock);
}

static void wait_turn(int me)
{
	if (turn == me) /* fast path: no lock when the turn is already ours */
		return;
	pthread_mutex_lock(&game_lock);
	while (turn != me)
		pthread_cond_wait(&turn_changed[me], &game_lock);
	pthread_mutex_unlock(&game_lock);
}

static void end_turn(int me)
{
	int next = (me + 1) % PLAYERS;

	pthread_mutex_lock(&game_lock);
	turn = next;
	pthread_cond_signal(&turn_changed[next]);
	moves++;
	pthread_mutex_unlock(&game_lock);
}

static void *player(void *arg)
{
	int me = *(const int *)arg;

	sit_down();
	for (int round = 0; round < ROUNDS; round++) {
		wait_turn(me);
		record[moves] = (struct move){.player = me, .round = round};
		end_turn(me);
	}
	return NULL;
}

int main(void)
{
	static int ids[PLAYERS];
	pthread_t players[PLAYERS];

	for (int i = 0; i < MOVES; i++)
		record[i].player = -1;
	for (int i = 0; i < PLAYERS; i++) {
		ids[i] = i;
		if (pthread_cond_init(&turn_changed[i], NULL) != 0) {
			fputs("turn_game: pthread_cond_init failed\n", stderr);
			return 2;
		}
	}
	for (int i = 0; i < PLAYERS; i++) {
		if (pthread_create(&players[i], NULL, player, &ids[i]) != 0) {
			fputs("turn_game: pthread_create failed\n", stderr);
			return 2;
		}
	}
	start_game();
	for (int i = 0; i < PLAYERS; i++)
		pthread_join(players[i], NULL);
	for (int i = 0; i < MOVES; i++) {
		if (record[i].player == -1) {
			fprintf(stderr, "turn_game: move %d is missing\n", i);
			abort();
		}
		if (record[i].player != i % PLAYERS || record[i].round != i / PLAYERS) {
			fprintf(stderr,
				"turn_game: move %d was made by player %d, expected player %d\n", i,
				record[i].player, i % PLAYERS);
			abort();
		}
	}
	printf("turn_game: %d players made %d moves in turn\n", PLAYERS, moves);
	return 0;
}
