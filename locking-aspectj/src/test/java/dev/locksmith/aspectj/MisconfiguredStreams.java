package dev.locksmith.aspectj;

import dev.locksmith.annotation.DistributedLock;
import reactor.core.publisher.Mono;

/** A woven {@code Mono} method whose annotation has a mistake, for {@link ReactiveWovenTest}. */
class MisconfiguredStreams {
  @DistributedLock(ttl = "ten seconds")
  Mono<String> report() {
    return Mono.just("ran");
  }
}
