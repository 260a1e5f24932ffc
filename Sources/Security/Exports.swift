// As on Apple platforms, `import Security` brings Foundation (Data, Date, NSDictionary) with it.
@_exported import Foundation
