/* The load client of tiny_server (tests of `bench --server`): N SET and GET requests on one
   connection to 127.0.0.1:PORT, every reply checked; prints "requests: 2N" and
   "rate: X requests/s" (the figure a --metric regex reads).  Exit 1 when a reply is wrong. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: tiny_client PORT N\n");
    return 2;
  }
  const long n = atol(argv[2]);
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons((unsigned short)atoi(argv[1]));
  if (connect(s, (struct sockaddr*)&a, sizeof a) != 0) {
    perror("tiny_client: connect");
    return 1;
  }
  FILE* io = fdopen(s, "r+");
  char* line = NULL;
  size_t size = 0;
  const double start = now();
  for (long i = 0; i < n; ++i) {
    fprintf(io, "SET key%ld value-%ld-%0*d\n", i % 1000, i, (int)(i % 200), 7);
    fflush(io);
    if (getline(&line, &size, io) <= 0 || strcmp(line, "OK\n") != 0) {
      fprintf(stderr, "tiny_client: SET %ld: bad reply\n", i);
      return 1;
    }
    fprintf(io, "GET key%ld\n", i % 1000);
    fflush(io);
    if (getline(&line, &size, io) <= 0 || strncmp(line, "value-", 6) != 0) {
      fprintf(stderr, "tiny_client: GET %ld: bad reply\n", i);
      return 1;
    }
  }
  const double took = now() - start;
  free(line);
  fclose(io);
  printf("requests: %ld\nrate: %.1f requests/s\n", 2 * n, took > 0 ? 2.0 * (double)n / took : 0.0);
  return 0;
}
