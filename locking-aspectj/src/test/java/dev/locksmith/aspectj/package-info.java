/** Tests of the aspect with classes woven at compile time, and a load-time woven child JVM. */
@NullMarked
package dev.locksmith.aspectj;

import org.jspecify.annotations.NullMarked;
