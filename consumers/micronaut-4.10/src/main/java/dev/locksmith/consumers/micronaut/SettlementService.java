package dev.locksmith.consumers.micronaut;

import dev.locksmith.consumers.Settlement;
import jakarta.inject.Singleton;

/**
 * The shared {@link Settlement} as a Micronaut bean: compiled here, with Locksmith's annotation
 * mapper on the processor path, so Micronaut intercepts the locked method it inherits. (A bean made
 * by a {@code @Factory} method would not be intercepted.)
 */
@Singleton
class SettlementService extends Settlement {}
