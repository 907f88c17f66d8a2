/**
 * A real Redis server for tests, never a skip: {@code LOCKSMITH_TEST_REDIS_URL} when set, else a
 * {@code redis-server} from the {@code PATH}, else the binary that {@code
 * com.github.codemonstur:embedded-redis} ships, each started on a free port of the loopback
 * interface.
 */
@NullMarked
package dev.locksmith.testkit.redis;

import org.jspecify.annotations.NullMarked;
