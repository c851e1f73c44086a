/* A tiny key-value server of the project's own, for the tests of `bench --server`: it listens on
   127.0.0.1:PORT, says "tiny-server ready on PORT" on stdout once it accepts connections, and
   serves one connection at a time, line by line:
     SET KEY VALUE -> "OK"   (the value is kept in a malloc'd block: the allocator is exercised)
     GET KEY       -> the value or "NONE"
     DEL KEY       -> "OK"
     SHUTDOWN      -> exits 0 (the `send:` way to stop it)
   SIGTERM also ends it with 0 after the connection it is serving; "tiny-server served N requests"
   goes to stdout at the end. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define BUCKETS 4096

struct entry {
  char* key;
  char* value;
  struct entry* next;
};

static struct entry* table[BUCKETS];
static volatile sig_atomic_t stop_requested = 0;
static unsigned long served = 0;

static void on_term(int sig) {
  (void)sig;
  stop_requested = 1;
}

static unsigned bucket(const char* key) {
  unsigned h = 2166136261u;
  for (; *key; ++key) h = (h ^ (unsigned char)*key) * 16777619u;
  return h % BUCKETS;
}

static struct entry** find(const char* key) {
  struct entry** e = &table[bucket(key)];
  while (*e && strcmp((*e)->key, key) != 0) e = &(*e)->next;
  return e;
}

static const char* handle(char* line, int* shutdown) {
  char* verb = strtok(line, " \r\n");
  char* key = strtok(NULL, " \r\n");
  char* value = strtok(NULL, "\r\n");
  if (verb == NULL) return "ERR";
  ++served;
  if (strcmp(verb, "SHUTDOWN") == 0) {
    *shutdown = 1;
    return "BYE";
  }
  if (key == NULL) return "ERR";
  struct entry** e = find(key);
  if (strcmp(verb, "SET") == 0 && value != NULL) {
    if (*e == NULL) {
      *e = calloc(1, sizeof **e);
      (*e)->key = strdup(key);
    } else {
      free((*e)->value);
    }
    (*e)->value = strdup(value);
    return "OK";
  }
  if (strcmp(verb, "GET") == 0) return *e ? (*e)->value : "NONE";
  if (strcmp(verb, "DEL") == 0 && *e) {
    struct entry* gone = *e;
    *e = gone->next;
    free(gone->key);
    free(gone->value);
    free(gone);
    return "OK";
  }
  return "ERR";
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: tiny_server PORT\n");
    return 2;
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_term;
  sigaction(SIGTERM, &sa, NULL);
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  const int one = 1;
  setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons((unsigned short)atoi(argv[1]));
  if (bind(s, (struct sockaddr*)&a, sizeof a) != 0 || listen(s, 16) != 0) {
    perror("tiny_server: bind/listen");
    return 1;
  }
  printf("tiny-server ready on %s\n", argv[1]);
  fflush(stdout);
  int shutdown = 0;
  while (!shutdown && !stop_requested) {
    const int c = accept(s, NULL, NULL);
    if (c < 0) continue;  /* EINTR from SIGTERM: the loop ends */
    FILE* in = fdopen(c, "r+");
    char* line = NULL;
    size_t size = 0;
    while (!shutdown && getline(&line, &size, in) > 0) {
      fprintf(in, "%s\n", handle(line, &shutdown));
      fflush(in);
    }
    free(line);
    fclose(in);
  }
  close(s);
  printf("tiny-server served %lu requests\n", served);
  return 0;
}
