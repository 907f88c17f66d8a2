/** Tests of the Spring integration against real application contexts and providers. */
@NullMarked
package dev.locksmith.spring;

import org.jspecify.annotations.NullMarked;
