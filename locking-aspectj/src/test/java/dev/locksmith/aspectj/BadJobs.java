package dev.locksmith.aspectj;

import dev.locksmith.annotation.DistributedLock;

/** A locked method configured wrongly, woven at compile time. */
class BadJobs {
  @DistributedLock(ttl = "soon")
  public String badTtl() {
    return "ran";
  }
}
