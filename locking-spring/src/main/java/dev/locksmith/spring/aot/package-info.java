/**
 * Spring AOT and GraalVM native-image support: the reflection, resource and proxy hints that
 * {@code @DistributedLock} needs at run time, registered through {@code
 * META-INF/spring/aot.factories}.
 */
@NullMarked
package dev.locksmith.spring.aot;

import org.jspecify.annotations.NullMarked;
