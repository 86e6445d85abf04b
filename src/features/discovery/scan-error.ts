// What a scan error code means, declared beside the code that raises it: the line its error
// records are documented by, and the diagnosis rule that explains a failed run in which it leads
// (the built-in diagnosis needs no model: features/diagnosis/rules-provider.ts).
export type ScanErrorConfidence = 'LOW' | 'MEDIUM' | 'HIGH';

export interface ScanErrorExplanation {
  summary: string;
  causes: string[];
  actions: string[];
  confidence: ScanErrorConfidence;
}

export interface ScanErrorDefinition {
  description: string;
  explanation: ScanErrorExplanation;
}
