/* The small Morris games solved from the start by a program of their own, for the data-driven
 * test of outside truth (tests/outside_truth.rs). Written from docs/RULES.md alone, sharing no
 * code with the crate: its own point numbering, lines typed in by hand, its own move generator
 * and symmetries, a forward walk over every position reachable from the start (up to the 16
 * symmetries of the board) and a solver by levels of distance over that graph (the winner
 * hurries, the loser delays; what no level settles is a draw). It writes `ROWS` positions
 * drawn at random (seeded: the same rows each time; the start first; wins, losses and draws
 * in turn while each lasts), with their values, as
 * rows `position<TAB>value<TAB>plies` as `tablebase probe GAME --brief` prints them.
 *
 *     cc -O2 -o /tmp/morris_small_games scripts/morris_small_games.c
 *     /tmp/morris_small_games morris|morabaraba|lasker STONES ROWS SEED > FILE
 *
 * Every reachable position is held in memory: meant for 3 or 4 stones a side. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *NAMES[24] = {"a1", "a4", "a7", "b2", "b4", "b6", "c3", "c4", "c5", "d1", "d2", "d3",
                                "d5", "d6", "d7", "e3", "e4", "e5", "f2", "f4", "f6", "g1", "g4", "g7"};
static const char *LINES[20][3] = {
    {"a7", "d7", "g7"}, {"g7", "g4", "g1"}, {"g1", "d1", "a1"}, {"a1", "a4", "a7"}, {"b6", "d6", "f6"},
    {"f6", "f4", "f2"}, {"f2", "d2", "b2"}, {"b2", "b4", "b6"}, {"c5", "d5", "e5"}, {"e5", "e4", "e3"},
    {"e3", "d3", "c3"}, {"c3", "c4", "c5"}, {"d7", "d6", "d5"}, {"g4", "f4", "e4"}, {"d1", "d2", "d3"},
    {"a4", "b4", "c4"},
    /* Morabaraba's diagonals */
    {"a7", "b6", "c5"}, {"g7", "f6", "e5"}, {"g1", "f2", "e3"}, {"a1", "b2", "c3"}};

static int nlines, lasker, K;
static uint32_t mills[20], adjacent[24], perms[16][24];

static int point(const char *name) {
    for (int p = 0; p < 24; p++)
        if (!strcmp(NAMES[p], name)) return p;
    abort();
}
static int count(uint32_t set) { return __builtin_popcount(set); }
/* Per symmetry, the image of each byte of a set by the byte's place. */
static uint32_t byte_images[16][3][256];
static uint32_t transform(int sym, uint32_t set) {
    return byte_images[sym][0][set & 255] | byte_images[sym][1][set >> 8 & 255] | byte_images[sym][2][set >> 16];
}
/* A state: the stones of the side to move, of the other side, and their hands. */
static uint64_t pack(uint32_t mover, uint32_t other, int mover_hand, int other_hand) {
    return (uint64_t)mover | (uint64_t)other << 24 | (uint64_t)mover_hand << 48 | (uint64_t)other_hand << 52;
}
static uint64_t canonical(uint64_t s) {
    uint32_t mover = s & 0xffffff, other = s >> 24 & 0xffffff;
    uint64_t best = UINT64_MAX, hands = s >> 48 << 48;
    for (int sym = 0; sym < 16; sym++) {
        uint64_t image = hands | (uint64_t)transform(sym, mover) | (uint64_t)transform(sym, other) << 24;
        if (image < best) best = image;
    }
    return best;
}

/* Open addressing: key + 1 (0 = empty) -> state number. */
#define SLOTS (1u << 25)
static uint64_t *keys;
static uint32_t *numbers;
static uint64_t *states;
static uint32_t nstates, capacity;

static uint32_t intern(uint64_t s) {
    uint64_t h = (s + 1) * 0x9E3779B97F4A7C15ull;
    uint32_t slot = h >> 39 & (SLOTS - 1);
    while (keys[slot]) {
        if (keys[slot] == s + 1) return numbers[slot];
        slot = (slot + 1) & (SLOTS - 1);
    }
    if (nstates == capacity) {
        capacity = capacity ? 2 * capacity : 1 << 20;
        states = realloc(states, capacity * sizeof *states);
    }
    if (nstates > SLOTS / 2) abort();
    keys[slot] = s + 1;
    numbers[slot] = nstates;
    states[nstates] = s;
    return nstates++;
}

static uint32_t *edges;
static uint64_t nedges, edge_capacity;
static void edge(uint64_t child) {
    if (nedges == edge_capacity) {
        edge_capacity = edge_capacity ? 2 * edge_capacity : 1 << 22;
        edges = realloc(edges, edge_capacity * sizeof *edges);
    }
    edges[nedges++] = intern(canonical(child));
}

static int lost(uint64_t s) { return count(s & 0xffffff) + (int)(s >> 48 & 15) < 3; }

/* The mover's stones are now `mover` after putting a stone on `to`: the children, with a removal
 * when `to` closed a mill. */
static int add_children(uint32_t mover, uint32_t other, int to, int mover_hand, int other_hand) {
    int closed = 0;
    for (int i = 0; i < nlines; i++)
        if ((mills[i] >> to & 1) && (mover & mills[i]) == mills[i]) closed = 1;
    if (!closed) {
        edge(pack(other, mover, other_hand, mover_hand));
        return 1;
    }
    uint32_t in_mill = 0;
    for (int i = 0; i < nlines; i++)
        if ((other & mills[i]) == mills[i]) in_mill |= mills[i];
    uint32_t removable = other & ~in_mill ? other & ~in_mill : other;
    int n = 0;
    for (int p = 0; p < 24; p++)
        if (removable >> p & 1) {
            edge(pack(other & ~(1u << p), mover, other_hand, mover_hand));
            n++;
        }
    /* Nothing to remove (Lasker, an opponent with every stone in hand): not a legal move. */
    return n;
}

static int expand(uint64_t s) {
    uint32_t mover = s & 0xffffff, other = s >> 24 & 0xffffff;
    int mover_hand = s >> 48 & 15, other_hand = s >> 52 & 15, n = 0;
    uint32_t empty = ~(mover | other) & 0xffffff;
    if (mover_hand > 0)
        for (int to = 0; to < 24; to++)
            if (empty >> to & 1) n += add_children(mover | 1u << to, other, to, mover_hand - 1, other_hand);
    if (mover_hand == 0 || lasker) {
        int fly = count(mover) + mover_hand == 3;
        for (int from = 0; from < 24; from++) {
            if (!(mover >> from & 1)) continue;
            uint32_t targets = fly ? empty : adjacent[from] & empty;
            for (int to = 0; to < 24; to++)
                if (targets >> to & 1)
                    n += add_children((mover & ~(1u << from)) | 1u << to, other, to, mover_hand, other_hand);
        }
    }
    return n;
}

static uint64_t rng_state;
static uint64_t next_random(void) { /* SplitMix64 */
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ z >> 30) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ z >> 27) * 0x94D049BB133111EBull;
    return z ^ z >> 31;
}

static void print_points(uint32_t set) {
    int first = 1;
    for (int p = 0; p < 24; p++)
        if (set >> p & 1) {
            printf("%s%s", first ? "" : ",", NAMES[p]);
            first = 0;
        }
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s morris|morabaraba|lasker STONES ROWS SEED\n", argv[0]);
        return 2;
    }
    const char *game = argv[1];
    K = atoi(argv[2]);
    int rows = atoi(argv[3]);
    rng_state = strtoull(argv[4], 0, 10);
    nlines = strcmp(game, "morabaraba") ? 16 : 20;
    lasker = !strcmp(game, "lasker");
    if (K < 3 || K > 4) return 2;
    for (int i = 0; i < nlines; i++) {
        for (int j = 0; j < 3; j++) mills[i] |= 1u << point(LINES[i][j]);
        for (int j = 0; j < 2; j++) {
            int p = point(LINES[i][j]), q = point(LINES[i][j + 1]);
            adjacent[p] |= 1u << q;
            adjacent[q] |= 1u << p;
        }
    }
    /* The symmetries: coordinates from the centre d4 turned and reflected, the outer square
     * optionally exchanged with the inner one (3 from the centre against 1). */
    for (int sym = 0; sym < 16; sym++)
        for (int p = 0; p < 24; p++) {
            int x = NAMES[p][0] - 'a' - 3, y = NAMES[p][1] - '1' - 3, k = sym % 8;
            if (k >= 4) x = -x;
            for (int t = 0; t < k % 4; t++) {
                int turned = -y;
                y = x;
                x = turned;
            }
            if (sym >= 8) {
                int ring = abs(x) > abs(y) ? abs(x) : abs(y);
                x = x / ring * (4 - ring);
                y = y / ring * (4 - ring);
            }
            for (int q = 0; q < 24; q++)
                if (NAMES[q][0] - 'a' - 3 == x && NAMES[q][1] - '1' - 3 == y) perms[sym][p] = q;
        }
    for (int sym = 0; sym < 16; sym++)
        for (int place = 0; place < 3; place++)
            for (int byte = 0; byte < 256; byte++)
                for (int bit = 0; bit < 8; bit++)
                    if (byte >> bit & 1) byte_images[sym][place][byte] |= 1u << perms[sym][8 * place + bit];
    keys = calloc(SLOTS, sizeof *keys);
    numbers = calloc(SLOTS, sizeof *numbers);
    /* The forward walk: states are numbered in the order found, so the walk is a queue. */
    uint64_t *first_edge = 0;
    intern(canonical(pack(0, 0, K, K)));
    uint32_t first_edge_capacity = 0;
    for (uint32_t i = 0; i < nstates; i++) {
        if (i + 2 > first_edge_capacity) {
            first_edge_capacity = 2 * (i + 2);
            first_edge = realloc(first_edge, first_edge_capacity * sizeof *first_edge);
        }
        first_edge[i] = nedges;
        if (!lost(states[i])) expand(states[i]);
        first_edge[i + 1] = nedges;
    }
    /* Levels: 0 lost (fewer than 3 stones, or no move); a win at odd n has a child lost at
     * n - 1; a loss at even n has only children won, the longest at n - 1. */
    int *dist = malloc(nstates * sizeof *dist);
    for (uint32_t i = 0; i < nstates; i++)
        dist[i] = lost(states[i]) || first_edge[i] == first_edge[i + 1] ? 0 : -1;
    for (int n = 1;; n++) {
        uint32_t settled = 0;
        for (uint32_t i = 0; i < nstates; i++) {
            if (dist[i] >= 0) continue;
            int all_won = 1, some_lost = 0;
            for (uint64_t e = first_edge[i]; e < first_edge[i + 1]; e++) {
                int d = dist[edges[e]];
                if (d == n - 1 && d % 2 == 0) some_lost = 1;
                if (d < 0 || d >= n || d % 2 == 0) all_won = 0;
            }
            if (n % 2 ? some_lost : all_won) {
                dist[i] = n;
                settled++;
            }
        }
        if (!settled) break;
    }
    uint32_t wins = 0, losses = 0, draws = 0;
    for (uint32_t i = 0; i < nstates; i++) {
        if (dist[i] < 0) draws++;
        else if (dist[i] % 2) wins++;
        else losses++;
    }
    fprintf(stderr, "%s %d: %u positions up to symmetry (%llu moves): %u won, %u lost, %u drawn\n", game, K,
            nstates, (unsigned long long)nedges, wins, losses, draws);
    printf("# %s, %d stones a side: %d positions reachable from the start, drawn at random (seed %s, the start\n", game,
           K, rows, argv[4]);
    printf("# first), with the value and plies found by scripts/morris_small_games.c (no code of the crate):\n");
    printf("# %s %s %s %s\n", game, argv[2], argv[3], argv[4]);
    /* Wins, losses and draws in turn while each lasts (most positions are won at once, draws
     * are rare), positions already over left out. */
    char *taken = calloc(nstates, 1);
    uint32_t left[3] = {0, 0, 0};
    for (uint32_t i = 0; i < nstates; i++)
        if (!lost(states[i])) left[dist[i] < 0 ? 2 : dist[i] % 2 ? 0 : 1]++;
    for (int r = 0; r < rows; r++) {
        uint32_t i = 0;
        int outcome = r % 3;
        while (!left[outcome]) outcome = (outcome + 1) % 3;
        if (r > 0) do i = next_random() % nstates;
            while (taken[i] || lost(states[i]) || (dist[i] < 0 ? 2 : dist[i] % 2 ? 0 : 1) != outcome);
        taken[i] = 1;
        left[dist[i] < 0 ? 2 : dist[i] % 2 ? 0 : 1]--;
        uint64_t s = states[i];
        uint32_t mover = s & 0xffffff, other = s >> 24 & 0xffffff;
        int mover_hand = s >> 48 & 15, other_hand = s >> 52 & 15;
        /* Which colour moves: in Morris and Morabaraba, while stones are in hand, Black holds one
         * more when it is to move; otherwise either colour, at random. */
        int white = lasker || (mover_hand == 0 && other_hand == 0) ? next_random() & 1 : mover_hand == other_hand;
        printf("W:");
        print_points(white ? mover : other);
        printf(" B:");
        print_points(white ? other : mover);
        printf(" %s %d %d\t", white ? "w" : "b", white ? mover_hand : other_hand, white ? other_hand : mover_hand);
        if (dist[i] < 0) printf("draw\t-\n");
        else printf("%s\t%d\n", dist[i] % 2 ? "win" : "loss", dist[i]);
    }
    return 0;
}
