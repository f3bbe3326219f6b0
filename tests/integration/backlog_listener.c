/*
 * backlog_listener.c — a Unix-socket listener that dies with a connection
 * still in its backlog, for tests/integration/dialer_epipe.sh.
 *
 *     backlog_listener PATH
 *
 * Binds and listens on PATH, prints "listening", waits (up to 20 s) until a
 * client's connection is queued, then closes the socket without accepting
 * it and removes PATH, as an engine killed at that instant would, and
 * prints "closed". The client's next write on that connection fails with
 * EPIPE. Exit 0 on success, 1 on any failure (named on stderr).
 */
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 2 || strlen(argv[1]) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
        fprintf(stderr, "usage: backlog_listener PATH (at most 107 bytes)\n");
        return 1;
    }
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    strcpy(addr.sun_path, argv[1]);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(fd, 8) != 0) {
        perror("backlog_listener: socket/bind/listen");
        return 1;
    }
    printf("listening\n");
    fflush(stdout);
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int n = poll(&p, 1, 20000);
    close(fd);
    unlink(argv[1]);
    if (n != 1) {
        fprintf(stderr, "backlog_listener: no connection within 20 s\n");
        return 1;
    }
    printf("closed\n");
    fflush(stdout);
    return 0;
}
