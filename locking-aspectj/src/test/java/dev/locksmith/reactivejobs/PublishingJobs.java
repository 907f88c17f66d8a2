package dev.locksmith.reactivejobs;

import dev.locksmith.annotation.DistributedLock;
import java.util.concurrent.SubmissionPublisher;

/**
 * A JDK publisher, whose work runs when it is subscribed to, after the call returned; outside the
 * aspect tests' package, whose own validation finds another mistake first.
 */
public class PublishingJobs {
  /**
   * Publishes later.
   *
   * @return the publisher
   */
  @DistributedLock
  public SubmissionPublisher<String> publish() {
    return new SubmissionPublisher<>();
  }
}
