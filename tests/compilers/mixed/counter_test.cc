// SPDX-License-Identifier: MIT
// The C library's test, in C++: threads from the standard library, a vector, a string.
#include "counter.h"

#include <iostream>
#include <string>
#include <thread>
#include <vector>

int main()
{
	std::vector<std::thread> threads;
	for (int i = 0; i < 3; i++)
		threads.emplace_back([] {
			for (int j = 0; j < 100; j++)
				counter_add(1);
		});
	for (auto &t : threads)
		t.join();
	std::string result = "total " + std::to_string(counter_total());
	std::cout << result << std::endl;
	return counter_total() == 300 ? 0 : 1;
}
